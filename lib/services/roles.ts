import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";

/** System roles plus the custom roles of the workspace. */
export async function listRoles(workspaceId: number) {
  const roles = await prisma().role.findMany({
    where: { OR: [{ workspaceId: null }, { workspaceId }] },
    orderBy: { id: "asc" },
  });
  if (roles.length === 0) throw new NotFound("No roles were found for this workspace.");
  return roles;
}
