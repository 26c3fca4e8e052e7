// The audit log: who created, updated or deleted what, and when. Services call `audit()` inside the
// same transaction as the change, so a change and its audit row land together or not at all.
import "server-only";
import type { Prisma } from "@/lib/generated/prisma/client";
import { prisma } from "@/lib/db/client";
import type { Page } from "@/lib/page";
import type { ListAuditLogsQuery } from "@/lib/validation/audit";
import type { AuthContext } from "../accounts/auth-context";

type Tx = Prisma.TransactionClient;

export type AuditAction =
  | "create"
  | "update"
  | "delete"
  | "trigger"
  | "cancel"
  | "test"
  | "enable"
  | "disable"
  | "export"
  | "approve"
  | "rotate"
  | "redeliver"
  | "apply";

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

/** The workspace's audit log, newest first, optionally narrowed to one resource or one user. */
export async function listAuditLogs(workspaceId: number, filters: ListAuditLogsQuery, page: Page) {
  const where: Prisma.AuditLogWhereInput = {
    workspaceId,
    ...(filters.resource_type ? { resourceType: filters.resource_type } : {}),
    ...(filters.resource_id ? { resourceId: filters.resource_id } : {}),
    ...(filters.user_id ? { userId: filters.user_id } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma().auditLog.findMany({
      where,
      include: { user: { select: { id: true, email: true, name: true } } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: page.skip,
      take: page.take,
    }),
    prisma().auditLog.count({ where }),
  ]);
  return { rows, total };
}
export type AuditLogRow = Awaited<ReturnType<typeof listAuditLogs>>["rows"][number];
