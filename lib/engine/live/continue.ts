// A live sync streams as a chain of rolling runs: when one ends well, the next is queued at once
// (a disabled, deleted or no longer live sync simply has no next run).
import "server-only";
import { prisma } from "@/lib/db/client";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { triggerSync } from "../runs";

/** A sync just turned live: its first run (the backfill) is queued; one already running is left to go on. */
export async function startLive(workspaceId: number, syncId: number): Promise<void> {
  await triggerSync(workspaceId, syncId).catch((err: unknown) => {
    logger.info({ syncId, err: (err as Error).message }, "live sync: its first run was not queued");
  });
}

export async function continueLive(run: Pick<SyncRun, "id" | "syncId" | "workspaceId" | "syncRunType">): Promise<void> {
  if (run.syncRunType !== "general") return;
  const sync = await prisma().sync.findUnique({ where: { id: run.syncId }, select: { live: true, status: true, deletedAt: true } });
  if (!sync?.live || sync.deletedAt || sync.status === "disabled") return;
  try {
    await triggerSync(run.workspaceId, run.syncId);
  } catch (err) {
    // Disabled or started meanwhile: nothing to continue.
    logger.info({ runId: run.id, syncId: run.syncId, err: (err as Error).message }, "live sync: the next rolling run was not queued");
  }
}
