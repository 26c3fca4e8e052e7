// The sync engine's public surface. The REST layer, the start script and the worker use only what is
// exported here; everything else under lib/engine is internal and may change.
//
// Runs:        triggerSync, cancelSync, cancelRun, triggerTestRun (workspace-scoped; NotFound 404 /
//              FailedDependency 424 from lib/errors)
// Approval:    approveRun (Conflict 409 unless the run waits for approval)
// Plans:       planSync (a dry run of the next general run; RateLimited 429, FailedDependency 424)
// Sync status: transitionSyncStatus (Conflict 409 when the transition table refuses it)
// Processes:   startEngine / stopEngine (npm start, npm run worker)
// Statuses:    ACTIVE_RUN_STATUSES (the console uses its copy in lib/sync-config/statuses.ts)
// Webhooks:    createDeliveries, pingPayload, newWebhookSecret (run events are emitted inside, from
//              run-store.ts; the worker below also delivers them: webhooks/, docs/webhooks.md)
//
// Inside: a run is execute-run.ts (lock, claim, poll, hand back) → run-attempt.ts (begin, extract,
// report) → run-execution.ts or test-run.ts (the strategies) → batch-diff.ts → send-batch.ts →
// record-batch.ts; every write of run and sync state is in run-store.ts; settings in settings.ts.
import "server-only";
import { closeDatabase } from "@/lib/db/client";
import { stopBoss } from "./queue";
import { startWorker, type WorkerHandle } from "./worker";
import { startScheduler, type SchedulerHandle } from "./scheduler";

export { triggerSync, cancelSync, cancelRun, triggerTestRun, transitionSyncStatus, approveRun } from "./runs";
export { planSync } from "./plan/sync-plan";
export { runAfterEdgesQuery, startSequence, toRunAfterEdges } from "./sequences/start";
export type { SyncPlan, RunPlan, PlanSample, PlanCounts } from "./plan/planner";
export type { SyncProposal } from "./context";
export { ACTIVE_RUN_STATUSES } from "./transitions";
export { pruneSequenceRuns, pruneSyncRecords, recordRetentionDays } from "./scheduler";
export { createDeliveries } from "./webhooks/deliveries";
export { pingPayload } from "./webhooks/payload";
export { newWebhookSecret } from "./webhooks/signature";

export interface EngineOptions {
  /** Run sync jobs in this process. */
  worker: boolean;
  /** Run the scheduler loop (only one process at a time acts; the others wait for the lock). */
  scheduler: boolean;
  /** Runs executed at once by this process's worker (default env WORKER_CONCURRENCY or 2). */
  concurrency?: number;
}

interface EngineState {
  worker?: WorkerHandle;
  scheduler?: SchedulerHandle;
}
const globals = globalThis as unknown as { __datasyncEngine?: EngineState };

/** Starts the worker and/or scheduler of this process. Needs DATABASE_URL (migrated). Idempotent. */
export async function startEngine(options: EngineOptions): Promise<void> {
  const state = (globals.__datasyncEngine ??= {});
  if (options.worker && !state.worker) state.worker = await startWorker({ concurrency: options.concurrency });
  if (options.scheduler && !state.scheduler) state.scheduler = startScheduler();
}

/**
 * Graceful stop: the scheduler stops, running runs hand themselves back to the queue at the next
 * batch boundary (another worker resumes them), then the queue connection closes.
 */
export async function stopEngine(options: { closeDatabase?: boolean } = {}): Promise<void> {
  const state = globals.__datasyncEngine;
  globals.__datasyncEngine = undefined;
  await state?.scheduler?.stop();
  await state?.worker?.stop();
  await stopBoss();
  if (options.closeDatabase) await closeDatabase();
}
export { startLive } from "./live/continue";
export { releaseLiveSlot } from "./live/release";
