// A live sync's run (docs/live-syncs.md): a rolling run that first backfills, if the sync has no
// recorded source position, with the general read as of the slot's exported snapshot, then streams
// the slot's changes for ENGINE_LIVE_PERIOD_SECONDS in micro-batches. Each micro-batch re-reads the
// model's rows for the keys that changed and goes through the same diff, map, load and record as a
// batch read; its position is saved in the batch's transaction and acknowledged to the source only
// after that commit, so a worker killed at any point resumes from the slot with nothing lost or doubled.
import "server-only";
import { liveSlotName, type LiveChanges, type LiveKeyReader, type LiveModel, type LiveSource, type LiveStream } from "@/lib/connectors/live";
import { prisma } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { detectsDeletes } from "@/lib/sync-rules/write-mode";
import { BatchDiffer } from "../batch-diff";
import { deleteItem } from "../delete-detection";
import { keyText } from "../diff";
import { BatchRecorder } from "../record-batch";
import type { RunAttempt, RunStrategy } from "../run-attempt";
import { extractAndLoad } from "../run-execution";
import { forgetStates, holdRunForApproval } from "../run-store";
import { sendItems } from "../send-batch";
import { engineSettings } from "../settings";
import { countStates } from "../state-blocks";
import { LiveGuard, microBatchChanges } from "./live-guard";
import { caughtUp, liveLsnOf, recordProgress, saveLiveLsn, startProgress, trackedStates } from "./live-store";

/** How often an idle stream saves that it is caught up (a write of the application database each time). */
const IDLE_SAVE_MS = 2000;

export const liveRun: RunStrategy = { batchRequests: true, tracksSync: true, extract: extractLive };

async function extractLive(attempt: RunAttempt): Promise<void> {
  const { ctx, pool } = attempt;
  const live = ctx.source.live;
  if (!live) throw new Error(`${ctx.source.definition.name} sources cannot run live.`);
  const model: LiveModel = { query: ctx.model.query, primaryKey: ctx.model.primaryKey };
  // Read afresh: an earlier attempt of this run may have backfilled.
  let from = await liveLsnOf(pool, ctx.sync.id);
  let caughtUpAt: Date | null = null;
  // Its slot gone (dropped while the sync was off, or by hand): nothing says what changed since, so backfill.
  if (from !== null && !(await live.exists(ctx.sourceConfig, ctx.sync.id))) from = null;
  try {
    if (from === null) {
      caughtUpAt = new Date();
      from = await backfill(attempt, live, model);
      if (from === null) return;
    }
    await startProgress(pool, ctx.sync.id, ctx.run.id, caughtUpAt);
    await streamFor(attempt, live, model, from, Date.now() + engineSettings.livePeriodSeconds * 1000).catch(async (err: unknown) => {
      // Turned off meanwhile: whoever did it drops the slot (release.ts), which breaks the stream. That
      // is the stop, not a failure: what was handed out is recorded, or replays on the next start.
      if (await stillOn(ctx.sync.id)) throw err;
      logger.info({ syncId: ctx.sync.id, err: (err as Error).message }, "live sync turned off: its stream ended");
    });
  } finally {
    await dropIfOff(attempt, live).catch((err: unknown) => logger.warn({ syncId: ctx.sync.id, err: (err as Error).message }, "live sync: could not drop its slot"));
  }
}

/**
 * A sync turned off (disabled, deleted, live no more) must not keep a slot that holds the source's
 * WAL: its slot and publication are dropped, after saying so; turned on again, it backfills anew.
 */
async function dropIfOff(attempt: RunAttempt, live: LiveSource): Promise<void> {
  const { ctx, pool } = attempt;
  if (await stillOn(ctx.sync.id)) return;
  logger.warn({ syncId: ctx.sync.id, slot: liveSlotName(ctx.sync.id) }, "live sync turned off: dropping its replication slot and publication on the source");
  await live.drop(ctx.sourceConfig, ctx.sync.id);
  await saveLiveLsn(pool, ctx.sync.id, null);
}

/** Live, not disabled, not deleted. */
async function stillOn(syncId: number): Promise<boolean> {
  const now = await prisma().sync.findUnique({ where: { id: syncId }, select: { live: true, status: true, deletedAt: true } });
  return !!now?.live && !now.deletedAt && now.status !== "disabled";
}

/** The general read as of the new slot's snapshot; the slot's position once it is all recorded, else null. */
async function backfill(attempt: RunAttempt, live: LiveSource, model: LiveModel): Promise<string | null> {
  const { ctx, pool } = attempt;
  const slot = await live.open(ctx.sourceConfig, ctx.sync.id, model);
  let whole = false;
  // An earlier attempt's states are compared, not taken as sent: a row it sent that changed before this
  // snapshot would otherwise stay stale for good (the stream starts after the snapshot), and one it
  // sent that is gone now would never be deleted.
  attempt.ownStatesRunId = 0;
  try {
    await extractAndLoad(attempt, { snapshot: slot.snapshot });
    whole = !attempt.halted;
    // Streamed changes are mostly of rows the backfill wrote: upserts merge from here on.
    attempt.newRows.likely = false;
  } finally {
    await slot.release();
    // Stopped or failed part way: the next attempt creates the slot again and re-reads (recorded rows
    // diff as unchanged), so this one must not hold the source's WAL meanwhile.
    if (!whole) await live.drop(ctx.sourceConfig, ctx.sync.id).catch(() => undefined);
  }
  if (!whole) return null;
  await saveLiveLsn(pool, ctx.sync.id, slot.lsn);
  return slot.lsn;
}

async function streamFor(attempt: RunAttempt, live: LiveSource, model: LiveModel, from: string, until: number): Promise<void> {
  const { ctx } = attempt;
  const stream = await live.stream(ctx.sourceConfig, ctx.sync.id, from);
  const reader = live.keyReader(ctx.sourceConfig, model);
  const recorder = new BatchRecorder(attempt, { states: "upsert" });
  // Every state counts, the backfill's of this very run too: they are the rows the destination holds.
  const guard = await LiveGuard.for(ctx, () => countStates(attempt.pool, ctx.sync.id, -1));
  let checked = Date.now();
  try {
    let idleSaved = 0;
    while (!attempt.halted && Date.now() < until) {
      // Live turned off (the status poll sees only a disable or delete): the rolling run ends here.
      if (Date.now() - checked >= engineSettings.statusPollMs) {
        checked = Date.now();
        if (!(await stillOn(ctx.sync.id))) return;
      }
      const asked = new Date();
      const changes = await stream.next({ maxKeys: engineSettings.batchSize, maxWaitMs: engineSettings.liveBatchMs, signal: attempt.signal });
      if (changes === null) {
        // Nothing came in a whole wait: the stream is caught up (saved now and then, for the lag shown).
        if (!attempt.halted && asked.getTime() - idleSaved >= IDLE_SAVE_MS) {
          await caughtUp(attempt.pool, ctx.sync.id, asked);
          idleSaved = asked.getTime();
        }
        continue;
      }
      // Transactions that carried nothing for the sync (servers before PostgreSQL 15 send them, as
      // one collapsed event): nothing to record, so no application-database write; the slot moves on
      // so it does not hold their WAL. A restart replays from the slot, past them.
      if (changes.keys.length === 0) {
        await stream.ack(changes.lsn);
        continue;
      }
      if (await applyChanges(attempt, reader, recorder, guard, changes)) await stream.ack(changes.lsn);
    }
  } finally {
    await closeQuietly(stream);
    await reader.close();
  }
}

async function closeQuietly(stream: LiveStream): Promise<void> {
  await stream.close().catch(() => undefined);
}

/**
 * One micro-batch through the batch pipeline; true when it is recorded whole with its position.
 * The model's current rows for the changed keys are what is sent: a key changed several times sends
 * its latest row once, a key gone from the model (deleted, or no longer matching the WHERE) is a
 * delete in mirror mode, and a replayed change finds its row unchanged.
 */
async function applyChanges(attempt: RunAttempt, reader: LiveKeyReader, recorder: BatchRecorder, guard: LiveGuard | null, changes: LiveChanges): Promise<boolean> {
  const { ctx, pool } = attempt;
  let started = performance.now();
  const rows = await reader.read(
    changes.keys.map((k) => k.text),
    changes.xids,
  );
  attempt.timings.query += performance.now() - started;
  started = performance.now();
  // Diffed as by no run (run id 0): a key this rolling run already sent is compared, not taken for a retry's.
  const differ = new BatchDiffer(pool, { ...ctx, run: { id: 0 } }, false);
  const { delta, toSend, rebaselined } = await differ.diff(rows);
  const goneKeys = changes.keys.map((k) => keyText(k.value)).filter((k): k is string => k !== null && !differ.seen.has(k));
  const gone = await trackedStates(pool, ctx.sync.id, goneKeys);
  attempt.timings.diff += performance.now() - started;
  const deletes = detectsDeletes(ctx.sync) ? gone.filter((g) => g.delivered).map((g) => deleteItem(ctx.model.primaryKey, g)) : [];
  if (guard) {
    // Over the sync's limits: nothing of the micro-batch is sent or recorded, its position is not
    // acknowledged (the slot hands it over again), and the rolling run waits for a person (live-guard.ts).
    const verdict = await guard.check(microBatchChanges(ctx, [...toSend, ...deletes], rows.length, delta.skippedRows));
    if (!verdict.go) {
      attempt.stop((await holdRunForApproval(ctx.run.id, verdict.plan, verdict.message, { afterWrites: true })) ? "approval" : "canceled");
      return false;
    }
  }
  const outcomes = await sendItems(attempt, [...toSend, ...deletes]);
  const undelivered = gone.filter((g) => !g.delivered).map((g) => g.key);
  if (undelivered.length > 0) await forgetStates(pool, ctx.sync.id, undelivered);
  // A stop part way leaves rows unsent: recorded as far as they went, the position kept for a replay.
  const complete = !attempt.halted;
  await recorder.record({
    seq: attempt.nextSeq++,
    outcomes,
    delta,
    rebaselined,
    commit: complete
      ? async (client) => {
          await saveLiveLsn(client, ctx.sync.id, changes.lsn);
          await recordProgress(client, ctx.sync.id, changes.changes, changes.committedAt);
        }
      : undefined,
  });
  return complete;
}
