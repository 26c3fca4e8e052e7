// The sync engine's public surface: the only module outside lib/engine may import (eslint.config.mjs
// enforces it; tests and the benchmark may reach inside). Everything else under lib/engine is
// internal and may change. The engine imports no service: services hang on it through the run
// event bus and startEngine's `services` (lib/services/run-events.ts wires them).
//
// Runs:        triggerSync, cancelSync, cancelRun, triggerTestRun (workspace-scoped; NotFound 404 /
//              FailedDependency 424 from lib/errors)
// Approval:    approveRun (Conflict 409 unless the run waits for approval)
// Plans:       planSync (a dry run of the next general run; RateLimited 429, FailedDependency 424)
// Sync status: transitionSyncStatus (Conflict 409 when the transition table refuses it)
// Processes:   startEngine / stopEngine (npm start, npm run worker)
// Statuses:    ACTIVE_RUN_STATUSES (the console uses its copy in lib/sync-rules/statuses.ts)
// Run events:  subscribe and the typed event map (events.ts); the subscribers of the engine's own
//              parts, webhooksOnRunEvent and sequencesOnRunSucceeded, are registered by the process
// Webhooks:    createDeliveries, pingPayload, newWebhookSecret (the worker below delivers them:
//              webhooks/, docs/webhooks.md)
// Records:     the record blocks' reading and their logs (records/, record-logs.ts)
// Sequences:   the run-after graph and a sequence run's progress (sequences/)
// Queue:       getBoss, ensureQueue (the process's pg-boss: other queues live beside the run queue),
//              withTransaction (with afterCommit)
//
// Inside: a run is execute-run.ts (lock, claim, poll, hand back) → run-attempt.ts (begin, extract,
// report) → run-execution.ts or test-run.ts (the strategies) → batch-diff.ts → send-batch.ts →
// record-batch.ts; every write of run and sync state is in run-store.ts; settings in settings.ts.
import "server-only";
import { closeDatabase } from "@/lib/db/client";
import { stopBoss } from "./queue";
import { startWorker, type BesideWork, type WorkerHandle } from "./worker";
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
export { webhooksOnRunEvent } from "./webhooks/emit";
export { subscribe, type EventContext, type RunCounts, type RunEvent, type RunEventName, type RunEvents, type Subscriber } from "./events";
export { sequencesOnRunSucceeded } from "./sequences/advance";
export { downstreamOf, findRunAfterCycle } from "./sequences/graph";
export { sequenceStatus, stepProgress, SETTLED_SEQUENCE_STATUSES, type SequenceStatus, type StepProgress, type StoredStepState } from "./sequences/progress";
export { parseWriteTarget, recordLogs, type RecordLogText, type WriteTarget } from "./record-logs";
export {
  blockHeads,
  pageHeadsOf,
  pageHeadsQuery,
  pageLinesQuery,
  pageOfLines,
  readAll,
  readRecord,
  readWindow,
  toPageHeads,
  type ExpandOptions,
  type PageHeadRow,
  type PageHeadsShape,
  type PageHeadsValues,
  type PageWindow,
  type RecordFilter,
} from "./records/read";
export { keyOfLineSql, matchingCodes } from "./records/format";
export type { SyncRecord } from "./records/types";
export { ensureQueue, getBoss, queueDepth, queueInstalled } from "./queue";
export { afterCommit, withTransaction } from "./transaction";

/** What other layers hang on the engine's processes (lib/services/run-events.ts). */
export interface EngineServices {
  /** Started beside the worker's run loops and stopped with them (the alert queue's work). */
  besideWorker?: readonly BesideWork[];
  /** Run by the scheduler's leader every ALERT_SWEEP_SECONDS (the alert sweep). */
  sweeps?: ReadonlyArray<() => Promise<void>>;
}

export interface EngineOptions {
  /** Run sync jobs in this process. */
  worker: boolean;
  /** Run the scheduler loop (only one process at a time acts; the others wait for the lock). */
  scheduler: boolean;
  /** Runs executed at once by this process's worker (default env WORKER_CONCURRENCY or 2). */
  concurrency?: number;
  services?: EngineServices;
}

interface EngineState {
  worker?: WorkerHandle;
  scheduler?: SchedulerHandle;
}
const globals = globalThis as unknown as { __datasyncEngine?: EngineState };

/** Starts the worker and/or scheduler of this process. Needs DATABASE_URL (migrated). Idempotent. */
export async function startEngine(options: EngineOptions): Promise<void> {
  const state = (globals.__datasyncEngine ??= {});
  const services = options.services ?? {};
  if (options.worker && !state.worker) state.worker = await startWorker({ concurrency: options.concurrency, beside: services.besideWorker });
  if (options.scheduler && !state.scheduler) state.scheduler = startScheduler({ sweeps: services.sweeps });
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
