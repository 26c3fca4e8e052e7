// What a live sync is doing now (docs/live-syncs.md): its state (backfilling, streaming, lagging,
// stopped), how far it trails its source (bytes held by its slot, seconds since the oldest change not
// yet recorded) and its throughput (changes per second of the current or last rolling run). The
// progress comes from the application database (live_progress, written with each micro-batch); the
// bytes from the source, through the bounded and cached reader of ./live-lag.
import "server-only";
import { liveSlotName } from "@/lib/connectors/live";
import { prisma } from "@/lib/db/client";
import { env } from "@/lib/settings/env";
import { Conflict, NotFound } from "@/lib/errors";
import type { LiveProgress, SyncRun } from "@/lib/generated/prisma/client";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { readLag, type LagReading } from "./live-lag";

export type LiveState = "backfilling" | "streaming" | "lagging" | "stopped";

export interface LiveStatus {
  syncId: number;
  state: LiveState;
  slot: string;
  lag: { bytes: number | null; seconds: number | null; measuredAt: Date; error: string | null };
  throughput: { runId: number; changes: number; seconds: number; changesPerSecond: number } | null;
  run: { id: number; status: SyncRunStatus } | null;
}

/** A run that holds the sync's stream, or is about to (a run held for approval does not: it waits for someone). */
const ACTIVE_RUN: readonly SyncRunStatus[] = ["pending", "started", "querying", "queued", "in_progress", "paused"];

/** The live status of a sync of the workspace: 404 when it is not the workspace's, 409 when it is not live. */
export async function getLiveStatus(workspaceId: number, syncId: number, now: Date = new Date()): Promise<LiveStatus> {
  const sync = await prisma().sync.findFirst({
    where: { id: syncId, workspaceId, deletedAt: null },
    select: { id: true, live: true, status: true, liveLsn: true, source: true, liveProgress: true },
  });
  if (!sync) throw new NotFound(`Sync ${syncId} was not found.`);
  if (!sync.live) throw new Conflict(`Sync ${syncId} is not live: turn live on (live: true) to stream its source's changes.`);
  const active = await prisma().syncRun.findFirst({
    where: { syncId, syncRunType: "general", status: { in: [...ACTIVE_RUN] } },
    orderBy: { id: "desc" },
    select: { id: true, status: true },
  });
  const reading = await readLag(syncId, sync.source);
  return liveStatusOf({ syncId, disabled: sync.status === "disabled", backfilled: sync.liveLsn !== null, active, progress: sync.liveProgress, reading, now });
}

interface Facts {
  syncId: number;
  disabled: boolean;
  backfilled: boolean;
  active: Pick<SyncRun, "id" | "status"> | null;
  progress: LiveProgress | null;
  reading: LagReading;
  now: Date;
  /** When the progress's run ended; read only when it has. */
  progressRunEnded?: Date | null;
}

/** The status from what was read; the throughput's run end is looked up when that run is over. */
async function liveStatusOf(f: Facts): Promise<LiveStatus> {
  const streamingRun = f.progress && f.active?.id === f.progress.runId;
  let ended: Date | null = null;
  if (f.progress && !streamingRun) {
    const run = await prisma().syncRun.findUnique({ where: { id: f.progress.runId }, select: { finishedAt: true } });
    ended = run?.finishedAt ?? f.progress.updatedAt;
  }
  return computeLiveStatus({ ...f, progressRunEnded: ended });
}

/** Pure: the state, lag and throughput from the facts. */
export function computeLiveStatus(f: Facts): LiveStatus {
  const running = !f.disabled && f.active !== null;
  const backfilling = running && !f.backfilled;
  const bytes = f.reading.ok ? (f.reading.lag?.bytes ?? null) : null;
  const slotGone = f.reading.ok && f.reading.lag === null;
  let seconds: number | null = null;
  if (!backfilling && !slotGone) {
    // Nothing held by the slot: nothing waits. Otherwise the oldest change not recorded is younger than
    // the time up to which every change is (an upper bound; the engine moves it at least every few seconds).
    if (bytes === 0) seconds = 0;
    // To a tenth, as shown; the state is judged on the figure shown, so the two never disagree.
    else if (f.progress?.caughtUpAt) seconds = Math.round(Math.max(0, (f.now.getTime() - f.progress.caughtUpAt.getTime()) / 1000) * 10) / 10;
  }
  let state: LiveState = "stopped";
  if (backfilling) state = "backfilling";
  else if (running) state = seconds !== null && seconds > env.ENGINE_LIVE_LAGGING_SECONDS ? "lagging" : "streaming";
  return {
    syncId: f.syncId,
    state,
    slot: liveSlotName(f.syncId),
    lag: { bytes, seconds, measuredAt: f.reading.at, error: f.reading.ok ? null : f.reading.error },
    throughput: throughputOf(f),
    run: f.active && !f.disabled ? { id: f.active.id, status: f.active.status } : null,
  };
}

function throughputOf(f: Facts): LiveStatus["throughput"] {
  const p = f.progress;
  if (!p) return null;
  const end = f.progressRunEnded ?? f.now;
  const seconds = Math.max(0, (end.getTime() - p.streamingSince.getTime()) / 1000);
  return {
    runId: p.runId,
    changes: p.changes,
    seconds: Math.round(seconds * 10) / 10,
    changesPerSecond: seconds > 0 ? Math.round((p.changes / seconds) * 100) / 100 : 0,
  };
}
