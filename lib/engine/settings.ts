// The settings the engine reads, by the names its modules use. Values come from the validated
// environment (lib/config/env.ts: defaults, forms and README text live there); each getter reads on
// use, so tests and the ops suites that set variables after import still take effect.
import "server-only";
import { databaseUrl } from "@/lib/config/process-database";
import { env } from "@/lib/config/env";

export const engineSettings = {
  /** ENGINE_BATCH_SIZE: rows per read batch (and per page of delete detection). */
  get batchSize(): number {
    return env.ENGINE_BATCH_SIZE;
  },
  /** ENGINE_BATCHES_IN_FLIGHT: batches diffed/loaded while the next one is read (at least 1). */
  get batchesInFlight(): number {
    return env.ENGINE_BATCHES_IN_FLIGHT;
  },
  /** ENGINE_MAX_RUN_ATTEMPTS: a crashed run is handed to another worker at most this many times. */
  get maxRunAttempts(): number {
    return env.ENGINE_MAX_RUN_ATTEMPTS;
  },
  /** ENGINE_STATUS_POLL_MS: how often a running run looks for a cancel or disable. */
  get statusPollMs(): number {
    return env.ENGINE_STATUS_POLL_MS;
  },
  /**
   * ENGINE_RELEASE_WAIT_SECONDS: a wait for the destination (rate budget, Retry-After, backoff)
   * longer than this frees the worker: the run pauses and goes back to the queue to start after the
   * wait, so one tenant's slow destination cannot hold the workers every workspace shares.
   */
  get releaseWaitMs(): number {
    return env.ENGINE_RELEASE_WAIT_SECONDS * 1000;
  },
  /** ENGINE_WRITE_ATTEMPTS: attempts per record (and retry pauses in a row) before it fails. */
  get writeAttempts(): number {
    return env.ENGINE_WRITE_ATTEMPTS;
  },
  /** ENGINE_RETRY_BASE_MS: the first backoff step of a retried write. */
  get retryBaseMs(): number {
    return env.ENGINE_RETRY_BASE_MS;
  },
  /** ENGINE_HEAP_SOFT_LIMIT_MB: above this heap size a full collection runs between batches. */
  get heapSoftLimitBytes(): number {
    return env.ENGINE_HEAP_SOFT_LIMIT_MB * 1024 * 1024;
  },
  /** ENGINE_MEMORY_LOG=1: logs the process's memory after every batch. */
  get memoryLog(): boolean {
    return env.ENGINE_MEMORY_LOG;
  },
  /** DATABASE_URL: the queue lives in the application database. */
  get databaseUrl(): string | undefined {
    return databaseUrl();
  },
  /** PGBOSS_SCHEMA: pg-boss's schema in the application database. */
  get bossSchema(): string {
    return env.PGBOSS_SCHEMA;
  },
  /** PGBOSS_POOL_SIZE: connections of pg-boss's own pool. */
  get bossPoolSize(): number {
    return env.PGBOSS_POOL_SIZE;
  },
  /** WORKER_CONCURRENCY: runs one worker process executes at once. */
  get workerConcurrency(): number {
    return env.WORKER_CONCURRENCY;
  },
  /**
   * WORKSPACE_MAX_ACTIVE_RUNS (0 or unset: no limit): runs of one workspace executing at once across
   * all workers, so a tenant whose sources or destinations are slow cannot hold every worker slot.
   */
  get workspaceMaxActiveRuns(): number {
    return env.WORKSPACE_MAX_ACTIVE_RUNS;
  },
  /** ENGINE_REAPER_INTERVAL_MS: how often a worker looks for runs and jobs of dead workers. */
  get reaperIntervalMs(): number {
    return env.ENGINE_REAPER_INTERVAL_MS;
  },
  /** ENGINE_QUEUED_GRACE_SECONDS: a queued run without a job (or a live worker) is re-sent after this long. */
  get queuedGraceSeconds(): number {
    return env.ENGINE_QUEUED_GRACE_SECONDS;
  },
  /**
   * ENGINE_STRANDED_JOB_SECONDS: a live worker claims a fetched run, or completes its job, within
   * milliseconds; an active job whose run has ended, or is still queued, this long after is one a
   * dead worker left behind.
   */
  get strandedJobSeconds(): number {
    return env.ENGINE_STRANDED_JOB_SECONDS;
  },
  /** ENGINE_SCHEDULER_INTERVAL_MS: how often the scheduler looks for due syncs. */
  get schedulerIntervalMs(): number {
    return env.ENGINE_SCHEDULER_INTERVAL_MS;
  },
  /** SYNC_RECORD_RETENTION_DAYS: records of runs finished longer ago are pruned (default 30). */
  get recordRetentionDays(): number {
    return env.SYNC_RECORD_RETENTION_DAYS;
  },
};
