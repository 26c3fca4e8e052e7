// Every environment variable the engine reads, with its default, in one place. Each value is read
// when it is used (the getters), as before: tests and the ops suites set variables after import.
// When lib/config/env.ts exists, this file is the one to switch over to it.
const env = (name: string): string | undefined => process.env[name];
const num = (name: string, fallback: number): number => Number(env(name) ?? fallback);

export const engineSettings = {
  /** ENGINE_BATCH_SIZE: rows per read batch (and per page of delete detection). */
  get batchSize(): number {
    return num("ENGINE_BATCH_SIZE", 5000);
  },
  /** ENGINE_BATCHES_IN_FLIGHT: batches diffed/loaded while the next one is read (at least 1). */
  get batchesInFlight(): number {
    return Math.max(1, num("ENGINE_BATCHES_IN_FLIGHT", 3));
  },
  /** ENGINE_MAX_RUN_ATTEMPTS: a crashed run is handed to another worker at most this many times. */
  get maxRunAttempts(): number {
    return num("ENGINE_MAX_RUN_ATTEMPTS", 3);
  },
  /** ENGINE_STATUS_POLL_MS: how often a running run looks for a cancel or disable. */
  get statusPollMs(): number {
    return num("ENGINE_STATUS_POLL_MS", 1000);
  },
  /**
   * ENGINE_RELEASE_WAIT_SECONDS: a wait for the destination (rate budget, Retry-After, backoff)
   * longer than this frees the worker: the run pauses and goes back to the queue to start after the
   * wait, so one tenant's slow destination cannot hold the workers every workspace shares.
   */
  get releaseWaitMs(): number {
    const seconds = num("ENGINE_RELEASE_WAIT_SECONDS", 10);
    return (Number.isFinite(seconds) && seconds >= 0 ? seconds : 10) * 1000;
  },
  /** ENGINE_WRITE_ATTEMPTS: attempts per record (and retry pauses in a row) before it fails. */
  get writeAttempts(): number {
    return num("ENGINE_WRITE_ATTEMPTS", 5);
  },
  /** ENGINE_RETRY_BASE_MS: the first backoff step of a retried write. */
  get retryBaseMs(): number {
    return num("ENGINE_RETRY_BASE_MS", 500);
  },
  /** ENGINE_HEAP_SOFT_LIMIT_MB: above this heap size a full collection runs between batches. */
  get heapSoftLimitBytes(): number {
    return num("ENGINE_HEAP_SOFT_LIMIT_MB", 64) * 1024 * 1024;
  },
  /** ENGINE_MEMORY_LOG=1: logs the process's memory after every batch. */
  get memoryLog(): boolean {
    return env("ENGINE_MEMORY_LOG") === "1";
  },
  /** DATABASE_URL: the queue lives in the application database. */
  get databaseUrl(): string | undefined {
    return env("DATABASE_URL");
  },
  /** PGBOSS_SCHEMA: pg-boss's schema in the application database. */
  get bossSchema(): string {
    return env("PGBOSS_SCHEMA") ?? "pgboss";
  },
  /** PGBOSS_POOL_SIZE: connections of pg-boss's own pool. */
  get bossPoolSize(): number {
    return num("PGBOSS_POOL_SIZE", 4);
  },
  /** WORKER_CONCURRENCY: runs one worker process executes at once. */
  get workerConcurrency(): number {
    return num("WORKER_CONCURRENCY", 2);
  },
  /**
   * WORKSPACE_MAX_ACTIVE_RUNS (0 or unset: no limit): runs of one workspace executing at once across
   * all workers, so a tenant whose sources or destinations are slow cannot hold every worker slot.
   */
  get workspaceMaxActiveRuns(): number {
    return num("WORKSPACE_MAX_ACTIVE_RUNS", 0);
  },
  /** ENGINE_REAPER_INTERVAL_MS: how often a worker looks for runs and jobs of dead workers. */
  get reaperIntervalMs(): number {
    return num("ENGINE_REAPER_INTERVAL_MS", 5000);
  },
  /** ENGINE_QUEUED_GRACE_SECONDS: a queued run without a job (or a live worker) is re-sent after this long. */
  get queuedGraceSeconds(): number {
    return num("ENGINE_QUEUED_GRACE_SECONDS", 60);
  },
  /**
   * ENGINE_STRANDED_JOB_SECONDS: a live worker claims a fetched run, or completes its job, within
   * milliseconds; an active job whose run has ended, or is still queued, this long after is one a
   * dead worker left behind.
   */
  get strandedJobSeconds(): number {
    return num("ENGINE_STRANDED_JOB_SECONDS", 10);
  },
  /** ENGINE_SCHEDULER_INTERVAL_MS: how often the scheduler looks for due syncs. */
  get schedulerIntervalMs(): number {
    return num("ENGINE_SCHEDULER_INTERVAL_MS", 5000);
  },
  /** SYNC_RECORD_RETENTION_DAYS: records of runs finished longer ago are pruned (default 30). */
  get recordRetentionDays(): number {
    const days = num("SYNC_RECORD_RETENTION_DAYS", 30);
    return Number.isFinite(days) && days > 0 ? days : 30;
  },
};
