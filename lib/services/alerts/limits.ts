// How many alert channels and rules a workspace may have (lib/validation/alerts.ts says why). Counted
// under a per-workspace advisory lock in the create's transaction, so creates sent all at once cannot
// pass the cap together.
import "server-only";
import { Conflict } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

/** 'ALRT': the advisory-lock namespace of alert creates (the workspace id is the second half). */
const NAMESPACE = 0x414c5254;

/** 409 when the workspace already has `max` alert channels or rules. */
export async function assertRoomFor(tx: Prisma.TransactionClient, what: "channels" | "rules", workspaceId: number, max: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${NAMESPACE}::int, ${workspaceId}::int)`;
  const where = { workspaceId };
  const count = what === "channels" ? await tx.alertChannel.count({ where }) : await tx.alertRule.count({ where });
  if (count >= max) {
    throw new Conflict(`This workspace already has ${max} alert ${what}, the most it may have; delete one first (a rule may watch every sync and send to several channels).`);
  }
}
