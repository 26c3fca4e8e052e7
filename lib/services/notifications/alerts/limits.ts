// How many alert channels and rules a workspace may have (lib/validation/alerts.ts says why). Counted
// under a per-workspace advisory lock in the create's transaction, so creates sent all at once cannot
// pass the cap together.
import "server-only";
import { Conflict } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

/** 'ALRT': the advisory-lock namespace of alert creates (the workspace id is the second half). */
const NAMESPACE = 0x414c5254;

/** The in-process queue of a workspace's alert creates (`inTransaction`'s `queueKey`): they take one lock. */
export const alertCreates = (workspaceId: number) => `alert-creates:${workspaceId}`;

type Counted = "channels" | "rules" | "email_channels";

const SAYS: Record<Counted, string> = {
  channels: "alert channels",
  rules: "alert rules",
  email_channels: "email alert channels (ALERT_MAX_EMAIL_CHANNELS)",
};

/** 409 when the workspace already has `max` alert channels, rules or email channels. */
export async function assertRoomFor(tx: Prisma.TransactionClient, what: Counted, workspaceId: number, max: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${NAMESPACE}::int, ${workspaceId}::int)`;
  const where = { workspaceId };
  const count =
    what === "rules"
      ? await tx.alertRule.count({ where })
      : await tx.alertChannel.count({ where: what === "email_channels" ? { ...where, channelType: "email" } : where });
  if (count >= max) {
    throw new Conflict(`This workspace already has ${max} ${SAYS[what]}, the most it may have; delete one first (a rule may watch every sync and send to several channels).`);
  }
}
