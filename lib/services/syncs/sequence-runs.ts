// Sequence runs (docs/orchestration.md): POST /api/v1/syncs/{id}/sequence_runs starts a sync and,
// as runs succeed, the syncs downstream of it (the engine's hook does that); GET
// /api/v1/sequence_runs/{id}[?wait=N] shows the progress, derived from the steps and their runs.
import "server-only";
import { prisma } from "@/lib/db/client";
import {
  downstreamOf,
  sequenceStatus,
  SETTLED_SEQUENCE_STATUSES,
  startSequence,
  stepProgress,
  type SequenceStatus,
  type StepProgress,
  type StoredStepState,
} from "@/lib/engine";
import { NotFound, ValidationFailed } from "@/lib/errors";
import type { SequenceRun, SequenceRunStep, SyncRun } from "@/lib/generated/prisma/client";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";
import { longPoll, type Waiter } from "./long-poll";
import { triggerOnce } from "./trigger-keys";

type Auth = Pick<AuthContext, "workspaceId" | "user">;

export interface SequenceStepView {
  step: SequenceRunStep;
  syncName: string;
  /** Its upstream syncs that are steps of this sequence. */
  inSequenceUpstreams: number[];
  run: SyncRun | null;
  progress: StepProgress;
}

export interface SequenceRunView {
  sequence: SequenceRun;
  status: SequenceStatus;
  steps: SequenceStepView[];
  /** When the last step's run finished, once the sequence has settled. */
  finishedAt: Date | null;
}

const STORED_STATES: readonly StoredStepState[] = ["waiting", "triggered", "skipped", "blocked"];
const storedState = (s: string): StoredStepState => STORED_STATES.find((x) => x === s) ?? "waiting";

/**
 * Starts the sequence at the sync: 404 when not the workspace's, 424 when it is disabled or running.
 * Audit-logged. With an idempotency key, a repeat within 24 hours answers the sequence run the key
 * started (the key names its first run, trigger-keys.ts); a key that started a plain run is a 422.
 */
export async function startSequenceRun(auth: Auth, syncId: number, idempotencyKey: string | null = null): Promise<SequenceRunView> {
  const start = async (): Promise<SyncRun> => {
    const { sequenceRunId, syncRunId } = await startSequence(auth.workspaceId, syncId, auth.user.name.trim() || auth.user.email);
    await audit(auth, "trigger", "sync", syncId, { sequence_run_id: sequenceRunId, sync_run_id: syncRunId, ...(idempotencyKey === null ? {} : { idempotency_key: idempotencyKey }) });
    return prisma().syncRun.findUniqueOrThrow({ where: { id: syncRunId } });
  };
  const run = idempotencyKey === null ? await start() : await triggerOnce(auth, syncId, idempotencyKey, start);
  // The sequence run whose first step is this run (written with the run, in one transaction).
  const step = await prisma().sequenceRunStep.findFirst({ where: { syncRunId: run.id, syncId, sequenceRun: { workspaceId: auth.workspaceId, syncId } } });
  if (!step) {
    throw ValidationFailed.fromFields([
      { path: "Idempotency-Key", in: "header", message: `was used in the last 24 hours to run sync ${syncId} on its own (POST /api/v1/schedule_syncs); send a new key to start a sequence` },
    ]);
  }
  return getSequenceRun(auth.workspaceId, step.sequenceRunId);
}

export async function getSequenceRun(workspaceId: number, id: number): Promise<SequenceRunView> {
  const db = prisma();
  const sequence = await db.sequenceRun.findFirst({ where: { id, workspaceId }, include: { steps: true } });
  if (!sequence) throw new NotFound(`Sequence run ${id} was not found.`);
  const runIds = sequence.steps.flatMap((s) => (s.syncRunId === null ? [] : [s.syncRunId]));
  const [runs, syncs] = await Promise.all([
    db.syncRun.findMany({ where: { id: { in: runIds }, workspaceId } }),
    db.sync.findMany({ where: { id: { in: sequence.steps.map((s) => s.syncId) }, workspaceId }, select: { id: true, name: true, deletedAt: true } }),
  ]);
  const runById = new Map(runs.map((r) => [r.id, r]));
  const syncById = new Map(syncs.map((s) => [s.id, s]));
  const members = new Set(sequence.steps.map((s) => s.syncId));
  // The order they were found in: the start, then breadth-first along the steps' own edges.
  const stepBySync = new Map(sequence.steps.map((s) => [s.syncId, s]));
  const edges = sequence.steps.flatMap((s) => s.upstreamSyncIds.map((u) => ({ syncId: s.syncId, upstreamSyncId: u })));
  const ordered = downstreamOf(edges, sequence.syncId).flatMap((id) => stepBySync.get(id) ?? []);
  const progress = stepProgress(
    ordered.map((s) => ({
      syncId: s.syncId,
      upstreamSyncIds: s.upstreamSyncIds,
      state: storedState(s.state),
      reason: s.reason,
      runStatus: s.syncRunId === null ? null : (runById.get(s.syncRunId)?.status ?? null),
      dependentsChecked: s.dependentsCheckedAt !== null,
      syncDeleted: !syncById.get(s.syncId) || syncById.get(s.syncId)?.deletedAt !== null,
    })),
  );
  const status = sequenceStatus(progress);
  const steps = ordered.map((s) => ({
    step: s,
    syncName: syncById.get(s.syncId)?.name ?? "",
    inSequenceUpstreams: s.upstreamSyncIds.filter((u) => members.has(u)),
    run: s.syncRunId === null ? null : (runById.get(s.syncRunId) ?? null),
    progress: progress.get(s.syncId) ?? { state: "waiting" as const, reason: null },
  }));
  const finishes = runs.flatMap((r) => (r.finishedAt ? [r.finishedAt.getTime()] : []));
  const finishedAt = SETTLED_SEQUENCE_STATUSES.has(status) && finishes.length > 0 ? new Date(Math.max(...finishes)) : null;
  return { sequence, status, steps, finishedAt };
}

/** getSequenceRun, long-polling up to `waitSeconds` for it to settle (./long-poll.ts, same cap as runs). */
export async function waitForSequenceRun(who: Waiter, id: number, waitSeconds: number, signal?: AbortSignal): Promise<SequenceRunView> {
  return longPoll(who, waitSeconds, () => getSequenceRun(who.workspaceId, id), (v) => SETTLED_SEQUENCE_STATUSES.has(v.status), signal);
}
