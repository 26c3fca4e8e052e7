// The settings the engine reads, by the names its modules use. Values come from the validated
// environment (lib/settings/env.ts: defaults, forms and README text live there); each property is a
// getter that reads on use, so tests and the ops suites that set variables after import still take effect.
import "server-only";
import { databaseUrl } from "@/lib/settings/process-database";
import { env } from "@/lib/settings/env";

type Env = typeof env;

/** Settings that are one variable as it is: the engine's name → the variable. */
const AS_IS = {
  batchSize: "ENGINE_BATCH_SIZE", // rows per read batch (and per page of delete detection)
  liveBatchMs: "ENGINE_LIVE_BATCH_MS", // a live micro-batch closes at most this long after its first change
  livePeriodSeconds: "ENGINE_LIVE_PERIOD_SECONDS", // a live sync's rolling run streams this long
  liveRetrySeconds: "ENGINE_LIVE_RETRY_SECONDS", // a failed live run is retried after this, doubled per failure in a row
  liveFailureLimit: "ENGINE_LIVE_FAILURE_LIMIT", // failed live runs in a row before the sync stops and drops its slot
  batchesInFlight: "ENGINE_BATCHES_IN_FLIGHT", // batches diffed/loaded while the next one is read (at least 1)
  maxRunAttempts: "ENGINE_MAX_RUN_ATTEMPTS", // a crashed run is handed to another worker at most this many times
  statusPollMs: "ENGINE_STATUS_POLL_MS", // how often a running run looks for a cancel or disable
  writeAttempts: "ENGINE_WRITE_ATTEMPTS", // attempts per record (and retry pauses in a row) before it fails
  retryBaseMs: "ENGINE_RETRY_BASE_MS", // the first backoff step of a retried write
  unchangedFilterMaxRows: "ENGINE_UNCHANGED_FILTER_MAX_ROWS", // re-runs pass unchanged rows in memory, up to this many fingerprints
  passThrough: "ENGINE_PASS_THROUGH", // reads COPY text lines (passed straight through where destination and mapping allow it)
  memoryLog: "ENGINE_MEMORY_LOG", // logs the process's memory after every batch
  bossSchema: "PGBOSS_SCHEMA", // pg-boss's schema in the application database
  bossPoolSize: "PGBOSS_POOL_SIZE", // connections of pg-boss's own pool
  workerConcurrency: "WORKER_CONCURRENCY", // runs one worker process executes at once
  // Runs of one workspace executing at once across all workers (0: no limit), so a tenant whose
  // sources or destinations are slow cannot hold every worker slot.
  workspaceMaxActiveRuns: "WORKSPACE_MAX_ACTIVE_RUNS",
  reaperIntervalMs: "ENGINE_REAPER_INTERVAL_MS", // how often a worker looks for runs and jobs of dead workers
  queuedGraceSeconds: "ENGINE_QUEUED_GRACE_SECONDS", // a queued run without a job (or a live worker) is re-sent after this long
  // A live worker claims a fetched run, or completes its job, within milliseconds; an active job whose
  // run has ended, or is still queued, this long after is one a dead worker left behind.
  strandedJobSeconds: "ENGINE_STRANDED_JOB_SECONDS",
  schedulerIntervalMs: "ENGINE_SCHEDULER_INTERVAL_MS", // how often the scheduler looks for due syncs
  recordRetentionDays: "SYNC_RECORD_RETENTION_DAYS", // records of runs finished longer ago are pruned
  rowCountLimit: "ENGINE_ROW_COUNT_LIMIT", // a run's progress counts the model's rows up to this many (run-estimate.ts)
  planTimeoutSeconds: "PLAN_TIMEOUT_SECONDS", // a plan answered by the API stops (424) after this long
  planMaxConcurrent: "PLAN_MAX_CONCURRENT", // plans one API process computes at once (429 past it)
  planMaxPerWorkspace: "PLAN_MAX_CONCURRENT_PER_WORKSPACE", // of those, one workspace's at once (429 past it)
} as const satisfies Record<string, keyof Env>;

type AsIs = { readonly [K in keyof typeof AS_IS]: Env[(typeof AS_IS)[K]] };

/** Settings computed from a variable. */
const derived = {
  /**
   * ENGINE_RELEASE_WAIT_SECONDS: a wait for the destination (rate budget, Retry-After, backoff)
   * longer than this frees the worker: the run pauses and goes back to the queue to start after the
   * wait, so one tenant's slow destination cannot hold the workers every workspace shares.
   */
  get releaseWaitMs(): number {
    return env.ENGINE_RELEASE_WAIT_SECONDS * 1000;
  },
  /** ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS: the deadline of each call a run makes into a connector (connector-calls.ts). */
  get connectorCallTimeoutMs(): number {
    return env.ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS * 1000;
  },
  /** ENGINE_ROW_COUNT_TIMEOUT_SECONDS: the longest a run's bounded row count may run on the source. */
  get rowCountTimeoutMs(): number {
    return env.ENGINE_ROW_COUNT_TIMEOUT_SECONDS * 1000;
  },
  /** ENGINE_STOP_GRACE_SECONDS: connector calls in flight at a cancel, disable or graceful stop are abandoned after this. */
  get stopGraceMs(): number {
    return env.ENGINE_STOP_GRACE_SECONDS * 1000;
  },
  /**
   * ENGINE_TEXT_BATCH_SIZE: lines per batch where lines pass straight through (twice ENGINE_BATCH_SIZE
   * unless set). Each batch costs a transaction in two databases; a line costs a fraction of a row's
   * memory (bench/README.md, 2026-11-30 (r)).
   */
  get textBatchSize(): number {
    return env.ENGINE_TEXT_BATCH_SIZE ?? 2 * env.ENGINE_BATCH_SIZE;
  },
  /** ENGINE_HEAP_SOFT_LIMIT_MB: above this heap size a full collection runs between batches. */
  get heapSoftLimitBytes(): number {
    return env.ENGINE_HEAP_SOFT_LIMIT_MB * 1024 * 1024;
  },
  /** DATABASE_URL: the queue lives in the application database. */
  get databaseUrl(): string | undefined {
    return databaseUrl();
  },
};

export const engineSettings = Object.defineProperties(
  derived,
  Object.fromEntries(
    Object.entries(AS_IS).map(([key, name]) => [key, { enumerable: true, configurable: true, get: () => env[name] }]),
  ),
) as typeof derived & AsIs;
