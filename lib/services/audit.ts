// The audit log: who created, updated or deleted what, and when. Services call `audit()` inside the
// same transaction as the change, so a change and its audit row land together or not at all.
import type { Prisma } from "@/lib/generated/prisma/client";
import { prisma } from "@/lib/db/client";
import type { AuthContext } from "./auth-context";

type Tx = Prisma.TransactionClient;

export type AuditAction = "create" | "update" | "delete" | "trigger" | "cancel" | "test" | "enable" | "disable";

export async function audit(
  auth: Pick<AuthContext, "workspaceId" | "user">,
  action: AuditAction,
  resourceType: string,
  resourceId: number | string | bigint | null,
  metadata: Record<string, unknown> = {},
  tx: Tx = prisma(),
): Promise<void> {
  await tx.auditLog.create({
    data: {
      workspaceId: auth.workspaceId,
      userId: auth.user.id || null,
      action,
      resourceType,
      resourceId: resourceId === null ? null : String(resourceId),
      metadata: metadata as Prisma.InputJsonValue,
    },
  });
}
