// Every environment variable the product reads, in one zod schema: its form, its default and what it
// does (the README's table is generated from the descriptions: `npm run docs:env`). Code reads
// `env.NAME`, never `process.env.NAME`, so a bad value fails with a message naming the variable and
// the form it must have instead of turning into NaN somewhere deep in a run.
//
// Each variable is parsed on its first read and kept until its raw value changes: tests set
// variables before (or between) the calls that read them, and a production process, whose
// environment does not change, parses each one once. `assertValidEnv()` parses them all at start-up,
// so a bad value stops the process before it serves anything.
import { z } from "zod";

/** What the README shows and errors name: the form a value must have, and the default in words. */
interface VariableMeta {
  form: string;
  /** The default when it is not a plain value (`embedded`, `generated into DATA_DIR`…). */
  unset?: string;
  /** Never echo the value in an error: it may hold a password. */
  sensitive?: boolean;
}

const blankIsUnset = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

function variable<T extends z.ZodType>(schema: T, meta: VariableMeta, description: string) {
  return z.preprocess(blankIsUnset, schema).meta({ ...meta, description });
}

const integer = (min: number, fallback: number, description: string, unset?: string) =>
  variable(
    z.coerce.number().int().min(min).default(fallback),
    { form: `a whole number ≥ ${min}`, unset },
    description,
  );

const integerUpTo = (min: number, max: number, fallback: number, description: string) =>
  variable(
    z.coerce.number().int().min(min).max(max).default(fallback),
    { form: `a whole number from ${min} to ${max.toLocaleString("en-US")}` },
    description,
  );

/** Most rows a run's count may count (connectors/shared/bounded-count.ts caps any caller at it too). */
export const MAX_ROW_COUNT_LIMIT = 100_000_000;

const decimal = (min: number, fallback: number, description: string, exclusive = false) =>
  variable(
    (exclusive ? z.coerce.number().gt(min) : z.coerce.number().min(min)).default(fallback),
    { form: `a number ${exclusive ? ">" : "≥"} ${min}` },
    description,
  );

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];
const flag = (fallback: boolean, description: string) =>
  variable(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => TRUE.includes(v) || FALSE.includes(v))
      .transform((v) => TRUE.includes(v))
      .default(fallback),
    { form: "1 or 0 (also true/false, yes/no, on/off)" },
    description,
  );

const text = (description: string, unset?: string) =>
  variable(z.string().trim().optional(), { form: "text", unset }, description);

const textWithDefault = (fallback: string, description: string) =>
  variable(z.string().trim().default(fallback), { form: "text" }, description);

const urlOf = (protocols: string[], form: string, description: string, unset?: string) =>
  variable(
    z
      .string()
      .trim()
      .refine((v) => URL.canParse(v) && protocols.includes(new URL(v).protocol))
      .optional(),
    { form, unset, sensitive: true },
    description,
  );

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const envSchema = z.object({
  // Where it runs
  PORT: integer(1, 3000, "port the console and API listen on"),
  HOST: textWithDefault("0.0.0.0", "address the console and API listen on"),
  NODE_ENV: text(
    "`production` refuses to start without strong `JWT_SECRET` / `ENCRYPTION_KEY` (unless on the embedded database); set by Next for its own builds",
  ),
  NEXT_DIST_DIR: textWithDefault(".next", "where the console build is kept"),
  LOG_LEVEL: variable(
    z.enum(LOG_LEVELS).optional(),
    { form: LOG_LEVELS.join(", "), unset: "`info` (`warn` under tests)" },
    "pino log level (JSON logs, one request id per request)",
  ),
  // The application database
  DATABASE_URL: urlOf(
    ["postgres:", "postgresql:"],
    "a postgresql:// URL",
    "PostgreSQL of the application; unset = embedded PostgreSQL",
    "embedded",
  ),
  DATA_DIR: textWithDefault(".data", "embedded database files and generated secrets"),
  EMBEDDED_PG_PORT: integer(1, 54329, "port of the embedded PostgreSQL (never 5432)"),
  DATABASE_POOL_SIZE: integer(1, 10, "database connections per process"),
  PGBOSS_SCHEMA: textWithDefault("pgboss", "PostgreSQL schema of the job queue (pg-boss)"),
  PGBOSS_POOL_SIZE: integer(1, 4, "database connections of the job queue per process"),
  // Accounts and secrets
  ADMIN_EMAIL: textWithDefault("admin@example.com", "first admin, created on an empty database"),
  ADMIN_PASSWORD: text(
    "password of that first admin; when unset a generated one is printed once",
    "generated",
  ),
  JWT_SECRET: text("HS256 key of access tokens; **required in production**", "generated into `DATA_DIR`"),
  JWT_EXPIRES_IN: integer(1, 3600, "session token lifetime, seconds"),
  ENCRYPTION_KEY: text(
    "AES-256-GCM key for connector secrets (32 bytes base64, or any string); **required in production**",
    "generated into `DATA_DIR`",
  ),
  NEXTAUTH_SECRET: text(
    "key of the console's session cookie (`AUTH_SECRET` is read too)",
    "derived from `JWT_SECRET`",
  ),
  AUTH_SECRET: text("the same as `NEXTAUTH_SECRET`, next-auth's newer name; `NEXTAUTH_SECRET` wins"),
  NEXTAUTH_URL: text(
    "public URL of the console for next-auth; unset = the request's host (next-auth is told to trust it)",
  ),
  SIGNUP_ENABLED: flag(
    false,
    "`1` = anyone who can reach the server may create an account (and a workspace of their own, as its Admin) with `POST /api/v1/signup`, signing in once their address is verified through a mailed link. Off: people join through an Admin's invitation, and sign-up answers 403",
  ),
  ORGANIZATION_NAME: textWithDefault(
    "Default organization",
    "the organization name workspaces show (`organization_name`; there is one implicit organization, id 1)",
  ),
  // Mail
  SMTP_URL: urlOf(
    ["smtp:", "smtps:"],
    "an smtp:// or smtps:// URL",
    "mail relay for password reset and verification mails, e.g. `smtps://user:pass@smtp.example.com:465` or `smtp://host:587?requireTLS=true` (nodemailer URL); unset = mails are not sent and each mail's link is logged at info level instead",
  ),
  CONSOLE_URL: urlOf(
    ["http:", "https:"],
    "an http(s):// URL",
    "the console that links in mails open (`/reset-password`, `/verify-user`: this server's console or the reference console); **required with `SMTP_URL`** (the server refuses to start without it), so no link depends on a request's `Host` header",
    "the request's address",
  ),
  MAIL_FROM: textWithDefault("Datasync <no-reply@localhost>", "sender of those mails"),
  MAIL_DIR: text(
    "without `SMTP_URL`: also write each mail (its text and link) as a JSON file into this directory, for development and tests; its files hold live single-use links (invitations, resets), so keep it private",
  ),
  // Alerts (docs/alerts.md)
  ALERT_SWEEP_SECONDS: integer(
    1,
    60,
    "how often the scheduler checks the alert rules that time alone can break (a sync without a successful run for too long, a run running too long), seconds; email alerts go out through `SMTP_URL` (unset: each message is logged and listed in the console's alert events)",
  ),
  ALERT_HTTP_TIMEOUT_MS: integer(1, 10000, "how long a Slack or webhook alert channel may take to answer, ms"),
  ALERT_MAX_EMAIL_CHANNELS: integer(1, 10, "email alert channels one workspace may have; beyond it, 409"),
  ALERT_MAX_RECIPIENTS_PER_CHANNEL: integer(1, 20, "addresses one email alert channel may name (at most 1000); beyond it, 422"),
  ALERT_MAX_MAILS_PER_HOUR: integer(
    1,
    200,
    "alert mails (messages × recipients, test messages included) one workspace may send per hour; beyond it each message is recorded as `suppressed` on its alert event, not mailed",
  ),
  ALERT_MAX_CONFIRMATIONS_PER_HOUR: integer(
    1,
    20,
    "confirmation mails one workspace may send per hour to alert recipients that are not its members (each address also gets at most one a day from a workspace, and 3 a day from all workspaces); the others stay pending and are mailed when their channel is saved again",
  ),
  // Sign-in and account throttling
  LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: integer(
    1,
    10,
    "failed sign-ins of one account from one address before each further attempt from there waits (429 with Retry-After), the wait doubling from `LOGIN_BACKOFF_BASE_SECONDS` up to the window; other addresses are not affected",
  ),
  LOGIN_BACKOFF_BASE_SECONDS: integer(1, 15, "the first of those waits, seconds"),
  LOGIN_MAX_FAILURES_PER_IP: integer(
    1,
    50,
    "failed sign-ins from one address per window before it may only sign in to accounts that signed in from it before",
  ),
  LOGIN_THROTTLE_WINDOW_SECONDS: integer(
    1,
    900,
    "the window of those counts, seconds; also how long a quiet account+address counter is kept",
  ),
  ACCOUNT_MAX_REQUESTS_PER_IP: integer(
    1,
    20,
    "account requests (sign-up, forgot/reset password, verify, resend) from one address per `LOGIN_THROTTLE_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  ACCOUNT_MAX_MAILS_PER_EMAIL: integer(
    1,
    5,
    "account requests naming one email address (counted whether or not it has an account) per `LOGIN_THROTTLE_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  // What one user or workspace can make the server mail (lib/services/mail-caps.ts)
  INVITATION_MAX_PER_WORKSPACE_PER_HOUR: integer(
    1,
    50,
    "invitations (`POST /api/v1/workspaces/{id}/members`) one workspace may send per hour; beyond it, 429 with `Retry-After`",
  ),
  INVITATION_MAX_PER_USER_PER_HOUR: integer(
    1,
    100,
    "invitations one user may send per hour from all their workspaces together; beyond it, 429 with `Retry-After`",
  ),
  WORKSPACE_MAX_CREATED_PER_USER_PER_DAY: integer(
    1,
    10,
    "workspaces one user may create per day (`POST /api/v1/workspaces`), so that creating workspaces does not multiply the per-workspace mail caps; beyond it, 429 with `Retry-After`",
  ),
  // The network
  TRUST_PROXY: flag(
    false,
    "`1` = a reverse proxy in front sets `X-Forwarded-For` (client address for login throttling and metrics), `X-Forwarded-Host` and `-Proto` (links in responses); otherwise the server drops those headers and uses the socket peer and the `Host` header",
  ),
  OUTBOUND_ALLOW_PRIVATE: variable(
    z.string().optional(),
    { form: "a comma list of addresses and CIDR ranges, or `*`", unset: "none" },
    "private, loopback and link-local addresses connectors (HTTP, PostgreSQL, MariaDB, Slack, Redis, RabbitMQ, NATS, MQTT and the SaaS destinations) may reach: a comma list of addresses and CIDR ranges (`10.0.0.0/8,192.168.1.20`), or `*` for all; none by default. Cloud metadata addresses and the application's own database are always refused. `DEMO=1` allows the demo database's host when unset. See [docs/security.md](docs/security.md)",
  ),
  CONNECTOR_ENV_ALLOWLIST: variable(
    z.string().optional(),
    { form: "a comma list of variable names", unset: "none" },
    "environment variables connector configurations may name as `ENV['X']` (comma list); none by default, and never the server's own secrets",
  ),
  DUCKDB_DATA_DIR: text(
    "directory whose files the DuckDB source reads; each workspace sees only its own subdirectory, `<DUCKDB_DATA_DIR>/workspace-<id>` (Parquet, CSV and JSON files, and DuckDB databases opened read-only). Unset, the DuckDB source refuses to read. See [docs/connectors.md](docs/connectors.md#duckdb)",
  ),
  FILES_MAX_DOWNLOAD_MB: integer(
    1,
    1024,
    "most megabytes the file sources (AmazonS3, Sftp, GoogleDrive) copy from their store for one operation (a discovery, a preview, a read), into a private temporary directory removed after it; a model naming more fails with a sentence. See [docs/connectors.md](docs/connectors.md#file-layer)",
  ),
  FILES_TEMP_DIR: text(
    "directory where the file connectors keep their temporary copies (each operation its own private subdirectory, removed after it); unset: the system's temporary directory",
    "the system's temporary directory",
  ),
  AWS_ENDPOINT_URL_STS: urlOf(
    ["https:", "http:"],
    "a URL",
    "where the AmazonS3 source asks AWS STS for a role's credentials (`auth_type` role): a regional or VPC endpoint, or a test server; unset, the region's STS endpoint. The server's own AWS credentials sign the request (the SDK's usual chain: environment, profile, instance or task role)",
    "the region's STS endpoint",
  ),
  S3_ROLE_AUTH: flag(
    false,
    "whether the AmazonS3 source may use `auth_type` role (AssumeRole with this server's own AWS identity). Off, such a connector is refused (422). On, a role in this server's own AWS account is refused, and an external id is required: every role's trust policy must name the customer's own external id (see [docs/connectors.md](docs/connectors.md#amazons3))",
  ),
  METRICS_TOKEN: text(
    "when set, `/api/metrics` requires `Authorization: Bearer <METRICS_TOKEN>`; unset, it answers only requests from this machine (loopback socket peer, and no remote client forwarded by a proxy)",
  ),
  // Processes
  RUN_WORKER: flag(true, "`0` = `npm start` serves web only (no sync worker in this process)"),
  WORKER_SCHEDULER: flag(
    true,
    "`0` = `npm run worker` runs no scheduler (it only acts in the one process holding its lock anyway)",
  ),
  WORKER_CONCURRENCY: integer(1, 2, "runs one worker process executes at a time"),
  DEMO: flag(false, "`1` = create the demo at start"),
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
  ENGINE_BATCHES_IN_FLIGHT: integer(1, 3, "batches diffed, loaded and recorded while the next is read"),
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
    "`0` = never pass rows through as COPY text (PostgreSQL → PostgreSQL with standard mappings); every row then goes through the JSON path",
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
  // Run lifecycle webhooks (docs/webhooks.md)
  WEBHOOK_RETRY_BASE_SECONDS: decimal(
    0,
    30,
    "wait before the second attempt of a webhook delivery the receiver did not accept; each later wait doubles",
    true,
  ),
  WEBHOOK_RETRY_MAX_HOURS: decimal(
    0,
    24,
    "a webhook delivery not accepted this many hours after its event is given up (no attempt is scheduled past it)",
    true,
  ),
  WEBHOOK_TIMEOUT_SECONDS: decimal(0, 10, "longest one webhook attempt may wait for the receiver's answer", true),
  WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION: integer(
    1,
    10,
    "redeliveries (`…/deliveries/{id}/redeliver`) of one webhook subscription per `WEBHOOK_REDELIVERY_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE: integer(
    1,
    50,
    "redeliveries of all of one workspace's webhook subscriptions per `WEBHOOK_REDELIVERY_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  WEBHOOK_REDELIVERY_WINDOW_SECONDS: integer(1, 600, "the window the webhook redelivery limits count in"),
});

export type Env = z.output<typeof envSchema>;
export type EnvName = keyof Env;
export const ENV_NAMES = Object.keys(envSchema.shape) as EnvName[];

/** The form and default text of a variable, for error messages and the README. */
export function variableMeta(name: EnvName): VariableMeta & { description: string } {
  const meta = envSchema.shape[name].meta();
  return {
    form: String(meta?.form ?? ""),
    unset: meta?.unset === undefined ? undefined : String(meta.unset),
    sensitive: meta?.sensitive === true,
    description: String(meta?.description ?? ""),
  };
}

function problem(name: EnvName): string {
  const meta = variableMeta(name);
  const value = meta.sensitive
    ? "the value set is not one (not shown: it may hold a password)"
    : `it is ${JSON.stringify(sourceOf()[name])}`;
  return `Environment variable ${name} must be ${meta.form}; ${value}.`;
}

/** One or more variables with values not of their form; the message names each and its form. */
export class EnvError extends Error {
  constructor(readonly names: EnvName[]) {
    super(names.map(problem).join("\n"));
    this.name = "EnvError";
  }
}

// In the console's bundle (the template preview reads template limits) there may be no `process`.
const sourceOf = (): Record<string, string | undefined> =>
  typeof process === "undefined" ? {} : process.env;

const parsed = new Map<EnvName, { raw: string | undefined; value: unknown }>();

function read<K extends EnvName>(name: K): Env[K] {
  const raw = sourceOf()[name];
  let hit = parsed.get(name);
  if (!hit || hit.raw !== raw) {
    const result = envSchema.shape[name].safeParse(raw);
    if (!result.success) throw new EnvError([name]);
    hit = { raw, value: result.data };
    parsed.set(name, hit);
  }
  // The schema of `name` produced this value, so it has the type Env[K].
  return hit.value as Env[K];
}

/** The environment, typed and validated: `env.ENGINE_BATCH_SIZE` is a number ≥ 1, whatever was set. */
export const env: Readonly<Env> = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(ENV_NAMES.map((name) => [name, { enumerable: true, get: () => read(name) }])),
  ) as Env,
);

/** Parses every variable; throws one EnvError naming all that are malformed. Call at start-up. */
export function assertValidEnv(): void {
  const bad = ENV_NAMES.filter((name) => !envSchema.shape[name].safeParse(sourceOf()[name]).success);
  if (bad.length) throw new EnvError(bad);
}
