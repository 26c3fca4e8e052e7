// The engine: templates, batches, runs and their limits. Part of envSchema (lib/settings/env.ts), in its
// order: the README lists them so.
import { integer, integerUpTo, decimal, flag, optionalInteger } from "./kinds";

/** Most rows a run's count may count (connectors/shared/bounded-count.ts caps any caller at it too). */
export const MAX_ROW_COUNT_LIMIT = 100_000_000;

export const engineVariables = {
  // Templates
  TEMPLATE_RENDER_LIMIT_MS: decimal(
    0,
    1000,
    "longest time one Liquid template render may take; the record fails beyond it",
    true,
  ),
  TEMPLATE_MEMORY_LIMIT: decimal(
    0,
    5_000_000,
    "characters or list items one Liquid render may build, output included; the record fails beyond it",
    true,
  ),
  // The engine
  SYNC_RECORD_RETENTION_DAYS: integer(1, 30, "sync records of runs older than this many days are pruned"),
  ENGINE_BATCH_SIZE: integer(1, 5000, "rows read per batch"),
  ENGINE_TEXT_BATCH_SIZE: optionalInteger(
    1,
    "lines read per batch where a source's COPY text lines go straight into a PostgreSQL or MariaDB destination (pass-through); lines hold far less memory than rows, and each batch costs a transaction in the destination and in the application database; a batch also ends at the line that brings it to 8 MiB of text (of the answer, for ClickHouse)",
    "twice `ENGINE_BATCH_SIZE`",
  ),
  ENGINE_BATCHES_IN_FLIGHT: integer(1, 3, "batches diffed, loaded and recorded while the next is read"),
  ENGINE_LIVE_BATCH_MS: integer(1, 1000, "a live sync's micro-batch closes at most this long after its first change (or at ENGINE_BATCH_SIZE keys)"),
  ENGINE_LIVE_PERIOD_SECONDS: integer(1, 300, "a live sync streams in rolling runs of this long, each with its counters and records"),
  ENGINE_LIVE_RETRY_SECONDS: integer(1, 30, "a live sync whose run failed starts again after this long, doubled with each failure in a row (at most 30 minutes)"),
  ENGINE_LIVE_FAILURE_LIMIT: integer(
    1,
    5,
    "after this many failed runs in a row a live sync stops and its replication slot is dropped, so the source keeps no WAL for it; running it again backfills anew",
  ),
  ENGINE_LIVE_LAGGING_SECONDS: integer(1, 60, "a streaming live sync whose oldest unrecorded change is older than this shows as `lagging` (docs/live-syncs.md)"),
  ENGINE_HEAP_SOFT_LIMIT_MB: integer(
    1,
    64,
    "heap size above which a worker collects garbage between batches, keeping its RSS under ~300 MB at any run size; `128` spends about a quarter less worker CPU per row for ~60 MB more RSS",
  ),
  ENGINE_UNCHANGED_FILTER_MAX_ROWS: integer(
    0,
    4_000_000,
    "a re-run holds up to this many of the sync's fingerprints in the worker's memory (~11.4 bytes each) to pass unchanged rows without a database lookup (a larger sync's other rows are looked up); `0` = never",
  ),
  ENGINE_PASS_THROUGH: flag(
    true,
    "`0` = never read rows as COPY text lines (PostgreSQL, MariaDB and ClickHouse sources: passed through with standard mappings, else mapped); every row then goes through the JSON path",
  ),
  ENGINE_MEMORY_LOG: flag(false, "`1` = log the worker's memory between batches (for measurements)"),
  ENGINE_WRITE_ATTEMPTS: integer(1, 5, "attempts per destination write with retryable failures"),
  ENGINE_RETRY_BASE_MS: integer(
    0,
    500,
    "the first backoff step between those attempts (exponential, jittered, never below `Retry-After`)",
  ),
  ENGINE_MAX_RETRY_AFTER_SECONDS: decimal(
    0,
    300,
    "longest `Retry-After` a destination can impose; a longer one is honoured as this many seconds",
  ),
  ENGINE_RELEASE_WAIT_SECONDS: decimal(
    0,
    10,
    "a wait for a destination (rate limit, `Retry-After`, backoff) longer than this frees the worker: the run stops after recording what it sent, shows status `paused` with `waiting_until`, and is queued to resume then. Retry pauses with no row delivered in between count against `ENGINE_WRITE_ATTEMPTS`",
  ),
  ENGINE_ROW_COUNT_LIMIT: integerUpTo(
    0,
    MAX_ROW_COUNT_LIMIT,
    1_000_000,
    "a run with nothing better to measure its progress against (a first run, an incremental read, a changed model) counts its model's rows on the source up to this many, under the read's read-only guards; past it the run reads \"more than N rows\" and shows no percentage. `0`: never count (progress then says the total is unknown)",
  ),
  ENGINE_ROW_COUNT_TIMEOUT_SECONDS: decimal(
    0,
    5,
    "longest that count may run on the source (its statement timeout); a count stopped by it leaves the total unknown, so a slow model or a warehouse costs at most this much more. `0`: never count",
  ),
  ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS: decimal(
    0,
    300,
    "longest one call of a run into a connector may take (reading the next batch, with its connect and query; writing a batch, with its acknowledgements; a key lookup; a COPY): past it the run fails saying which connector did not answer, its connections are closed and its worker slot is free. It bounds connectors' own timeouts too (a `query_timeout` above it is cut here): raise it for models whose batches take longer",
    true,
  ),
  CONNECTOR_API_CALL_TIMEOUT_SECONDS: decimal(
    1,
    120,
    "longest a connector call made by the API (check_connection, discover, a query preview) may take: past it the call is aborted (its signal ends the connector's requests and polling) and the API answers with a failure sentence",
  ),
  ENGINE_STOP_GRACE_SECONDS: decimal(
    0,
    5,
    "on a cancel, a disable or a graceful stop of the worker, how long connector calls in flight may still answer (what they deliver is recorded) before they are abandoned; a stopped worker's runs then go back to the queue",
  ),
  PLAN_TIMEOUT_SECONDS: integer(
    1,
    120,
    "longest a plan (`POST /api/v1/syncs/{id}/plan`, a dry run that reads the whole model in the API process) may take; past it the request answers 424 and nothing was changed",
  ),
  PLAN_MAX_CONCURRENT: integer(
    1,
    2,
    "plans one API process computes at once; more answer 429 until one finishes",
  ),
  PLAN_MAX_CONCURRENT_PER_WORKSPACE: integer(
    1,
    1,
    "plans one workspace may have under way at once in one API process (never all of `PLAN_MAX_CONCURRENT` when it is 2 or more: one is always left to the other workspaces); more answer 429 with `Retry-After`, so one tenant's slow models cannot hold every plan slot",
  ),
  LONG_POLL_MAX_PER_WORKSPACE: integer(
    1,
    20,
    "long-polls (`GET …/sync_runs/{id}?wait=N` and `GET /api/v1/sequence_runs/{id}?wait=N` with N > 0) one workspace may hold open at once in one API process; more answer 429 with `Retry-After` until one ends, so one tenant cannot tie up the server",
  ),
  LONG_POLL_MAX_PER_USER: integer(
    1,
    40,
    "long-polls one user (or their API tokens) may hold open at once in one API process, across every workspace they belong to; more answer 429 with `Retry-After`, so workspaces of one's own cannot multiply the per-workspace cap",
  ),
  ENGINE_MAX_RUN_ATTEMPTS: integer(
    1,
    3,
    "times a run interrupted by a crashed or stopped worker is resumed before it fails",
  ),
  WORKSPACE_MAX_ACTIVE_RUNS: integer(
    0,
    0,
    "runs of one workspace that may execute at once across all workers (`0`: no limit); a run over this share stays queued until one ends. Set it on a multi-tenant install (e.g. `1` with two slots) so a tenant with slow sources or destinations cannot hold every worker",
    "none",
  ),
  ENGINE_STATUS_POLL_MS: integer(
    1,
    1000,
    "how often a running run checks whether it was canceled or its sync disabled, ms",
  ),
  ENGINE_SCHEDULER_INTERVAL_MS: integer(1, 5000, "how often the scheduler looks for due syncs, ms"),
  ENGINE_REAPER_INTERVAL_MS: integer(
    1,
    5000,
    "how often a worker looks for runs that a dead worker left behind, ms",
  ),
  ENGINE_QUEUED_GRACE_SECONDS: integer(
    1,
    60,
    "a queued run whose job vanished (or whose worker died before claiming it) is sent again after this long",
  ),
  ENGINE_STRANDED_JOB_SECONDS: integer(
    1,
    10,
    "an active job whose run has ended or is still queued this long after is taken as left behind by a dead worker",
  ),
};
