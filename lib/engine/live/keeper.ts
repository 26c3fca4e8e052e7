// A live sync keeps one run going. The rolling run that ends well queues the next at once
// (continue.ts), but nothing does when its worker dies between the run's end and that step, or when
// the run failed. The keeper, run with the reaper in every worker, starts a run for each live sync
// that has none: a few seconds after one that ended well, after a backoff that doubles with each
// failure in a row after one that failed, and never after a cancel (a person stopped it) nor past
// ENGINE_LIVE_FAILURE_LIMIT failures in a row: then it drops the sync's slot, so the source keeps
// no WAL for a sync that no longer reads it, and says so. Every worker may run it at once:
// triggerSync starts at most one run per sync.
import "server-only";
import { sql } from "kysely";
import { db } from "@/lib/db/kysely";
import { logger } from "@/lib/logger";
import { runOutcome, type RunOutcome } from "@/lib/sync-rules/run-outcome";
import { triggerSync } from "../runs";
import { engineSettings } from "../settings";
import { ACTIVE_RUN_STATUSES } from "../transitions";
import { dropLiveSlot } from "./release";

/** After a run that ended well, the one that ended it has this long to queue the next itself. */
const HANDOVER_GRACE_MS = 5_000;
/** The longest wait between failed runs. */
const MAX_BACKOFF_MS = 30 * 60_000;

/** What the keeper does for a live sync without a run, from its last general runs (newest first). */
export type KeeperStep = { action: "start"; after: Date } | { action: "give_up" } | { action: "none" };

interface EndedRun {
  outcome: RunOutcome;
  finishedAt: Date | null;
}

/** The decision alone, from the sync's last general runs, newest first (at most the failure limit). */
export function keeperStep(runs: EndedRun[], settings: { failureLimit: number; retryMs: number }): KeeperStep {
  const last = runs[0];
  // Never ran: the sync was turned live and its first run is being queued (startLive).
  if (!last) return { action: "none" };
  const ended = last.finishedAt ?? new Date(0);
  if (last.outcome === "succeeded" || last.outcome === "succeeded_with_rejections") {
    return { action: "start", after: new Date(ended.getTime() + HANDOVER_GRACE_MS) };
  }
  if (last.outcome !== "failed") return { action: "none" };
  let failures = 0;
  while (failures < runs.length && runs[failures].outcome === "failed") failures++;
  if (failures >= settings.failureLimit) return { action: "give_up" };
  const backoff = Math.min(MAX_BACKOFF_MS, settings.retryMs * 2 ** (failures - 1));
  return { action: "start", after: new Date(ended.getTime() + backoff) };
}

/** Starts the runs live syncs are owed and gives up on those failing past the limit. Returns how many it started. */
export async function keepLiveSyncsGoing(now = new Date()): Promise<number> {
  const syncs = await db()
    .selectFrom("syncs as s")
    .select(["s.id", "s.workspace_id", "s.live_lsn"])
    .where("s.live", "=", true)
    .where("s.deleted_at", "is", null)
    .where("s.status", "!=", "disabled")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("sync_runs as r")
            .select(sql`1`.as("one"))
            .whereRef("r.sync_id", "=", "s.id")
            .where("r.sync_run_type", "=", "general")
            .where("r.status", "in", [...ACTIVE_RUN_STATUSES]),
        ),
      ),
    )
    .execute();
  const settings = { failureLimit: engineSettings.liveFailureLimit, retryMs: engineSettings.liveRetrySeconds * 1000 };
  let started = 0;
  for (const sync of syncs) {
    const runs = await db()
      .selectFrom("sync_runs")
      .select(["status", "failed_rows", "error", "canceled_by", "finished_at"])
      .where("sync_id", "=", sync.id)
      .where("sync_run_type", "=", "general")
      .orderBy("id", "desc")
      .limit(settings.failureLimit)
      .execute();
    const step = keeperStep(
      runs.map((r) => ({ outcome: runOutcome(r), finishedAt: r.finished_at })),
      settings,
    );
    if (step.action === "give_up") {
      // Given up once: the slot is gone and live_lsn cleared, so later passes find nothing to drop.
      if (sync.live_lsn === null) continue;
      logger.warn(
        { syncId: sync.id, failures: settings.failureLimit },
        "live sync failed too many times in a row: dropping its replication slot so the source keeps no WAL for it; running it again backfills anew",
      );
      await dropLiveSlot(sync.id);
      continue;
    }
    if (step.action !== "start" || step.after > now) continue;
    try {
      await triggerSync(sync.workspace_id, sync.id);
      logger.warn({ syncId: sync.id }, "live sync had no run (its last one failed, or its worker stopped before queueing the next): started one");
      started++;
    } catch (err) {
      // Started or disabled meanwhile (another worker's keeper, a person): nothing to do.
      logger.info({ syncId: sync.id, err: (err as Error).message }, "live sync: the keeper's run was not queued");
    }
  }
  return started;
}

/** For the reaper: never throws (a keeper that failed once tries again at the next pass). */
export async function keepLiveSyncsGoingQuietly(): Promise<void> {
  await keepLiveSyncsGoing().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "live sync keeper failed"));
}
