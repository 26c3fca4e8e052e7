// The contract between the engine/API and every connector. Connectors are pure adapters: they get a
// configuration (already decrypted, ENV['X'] placeholders already resolved) and rows, talk to their
// system, and return results. They never import Prisma, the queue or anything under lib/services.
import type { WriteMode } from "@/lib/sync-rules/write-mode";
import type { CopyLines, LineBatch } from "@/lib/db/pg-wire/line-batch";

/** A JSON Schema (draft-07, as the reference console's rjsf + ajv expect; see shared/spec.ts). */
export type JsonSchema = Record<string, unknown>;

export type ConnectorKind = "source" | "destination";
import type { ConnectorCategoryName } from "./categories";
import type { LiveSource } from "./live";
export type { ConnectorCategoryName };

/** A source row or a destination payload: plain JSON values only. */
export type Row = Record<string, unknown>;

export interface ConnectorDefinition {
  /** Stable identifier used by the API (`connector_name`), e.g. `Postgresql`, `Http`: the reference's name where it has one. */
  name: string;
  /** Other names that answer the same definition (our earlier names, e.g. `Salesforce` for `SalesforceCrm`). */
  aliases?: readonly string[];
  title: string;
  connectorType: ConnectorKind;
  /** The reference's category (its meta.json); connectorGroup() gives the data / ai_ml group. */
  category: ConnectorCategoryName;
  /** The reference's sub_category; absent where its meta.json has none. */
  subCategory?: string;
  /** Public path of the icon, e.g. `/icons/postgresql.svg`. */
  icon: string;
  documentationUrl: string;
  /**
   * JSON Schema (draft-07) of the configuration; secret fields carry `"secret": true` (any depth)
   * and the reference's `"multiwoven_secret": true` (shared/spec.ts).
   */
  connectionSpecification: JsonSchema;
  /**
   * Fields that say where the secrets are sent (host, port, database, URL). When one changes, a
   * masked secret sent back is not carried over to the new target: it must be entered again.
   */
  secretTargetFields?: readonly string[];
  /** `dynamic` (streams discovered from the system) or `user_defined`. */
  streamType: "dynamic" | "user_defined";
  /** For sources: does it support SQL model queries (query_source preview)? */
  supportsQuery?: boolean;
  /**
   * Destinations: false when writing a record twice has two effects (a webhook call, a chat
   * message). The engine then gives each record an idempotency key and keeps a delivery ledger, so
   * a delivered record is never sent again (lib/engine/delivery-ledger.ts). Absent: idempotent
   * (upserts by key, as SQL destinations do).
   */
  idempotentWrites?: boolean;
  /**
   * For destinations: the write modes a sync may use with it (docs/write-modes.md), the preferred
   * default first when upsert is not among them. Absent: upsert only.
   */
  writeModes?: readonly WriteMode[];
  /**
   * The server hands the adapter the id of the workspace the connector belongs to, under
   * WORKSPACE_ID_KEY (adapter-config.ts), overwriting anything the tenant wrote there: for
   * connectors that reach the server's own resources (the DuckDB source's files), which must be the
   * workspace's own.
   */
  workspaceScoped?: boolean;
  /**
   * Checks the JSON Schema cannot express (a template's fixed text), run on save after the schema
   * passes: each problem is a 422 on its field. Pure: no network, no secrets.
   */
  configurationProblems?: (config: Row) => ConfigurationProblem[];
}

/** A configuration field the connector refuses: its dotted path and why (a sentence's tail: "cannot…"). */
export interface ConfigurationProblem {
  path: string;
  message: string;
}

export interface CheckResult {
  ok: boolean;
  /** A sentence a person can act on ("Connected to PostgreSQL 15.4", "password authentication failed for user x"). */
  details: string;
}

export type SyncMode = "full_refresh" | "incremental";

/**
 * `schema`: records are mapped onto the fields the stream's json_schema declares; `schemaless`: the
 * destination takes any fields (HTTP, Slack), so the mapping names its own. The reference console
 * picks its mapping screen by it and waits until the catalog has one.
 */
export type SchemaMode = "schema" | "schemaless";

/**
 * What a stream is for (the reference protocol's StreamAction): `fetch` for tables, of sources and
 * SQL destinations alike (as the reference declares them), `create` for APIs records are posted to.
 */
export type StreamAction = "fetch" | "create" | "update" | "delete";

/** One stream of a catalog: the interface's members plus the reference protocol's (protocol.rb Stream). */
export interface Stream {
  name: string;
  url: string;
  json_schema: JsonSchema;
  batch_support: boolean;
  batch_size: number;
  request_method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  request_rate_limit?: number;
  request_rate_limit_unit?: RateLimitUnit;
  request_rate_concurrency?: number;
  /** Destination tables: the primary key columns, used for upserts. */
  primary_key?: string[];
  /** Set by each connector's discovery; absent on streams built from a request's json_schema. */
  action?: StreamAction;
  // The reference protocol's members (protocol.rb Stream). Optional here, so fixtures and the engine
  // need not spell them; buildCatalog sets them and the API always carries them.
  /** The sync modes a sync may use with this stream (the reference console offers these). */
  supported_sync_modes?: SyncMode[];
  /** True when the system picks the incremental cursor itself; ours never do (a sync names cursor_field). */
  source_defined_cursor?: boolean;
  /** Tables with a primary key: its columns, each as a one-element path (the reference's shape). */
  source_defined_primary_key?: string[][];
}

export type RateLimitUnit = "second" | "minute" | "hour" | "day";

export interface Catalog {
  streams: Stream[];
  request_rate_limit: number;
  request_rate_limit_unit: RateLimitUnit;
  request_rate_concurrency: number;
  /** Set by buildCatalog (default `schema`); see SchemaMode. */
  schema_mode?: SchemaMode;
  /** Catalog-wide: whether the source defines the cursor (the reference console then hides its cursor picker). */
  source_defined_cursor?: boolean;
  /** Destinations, as discovered: the write modes a sync may use (the definition's writeModes). */
  supported_write_modes?: WriteMode[];
}

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Row[];
}

export interface ReadOptions {
  /** The model query (raw SQL for SQL sources). */
  query: string;
  batchSize: number;
  /**
   * Text reads (TextRowsSource.read): a batch also ends once its lines hold about this much text
   * (characters, or bytes of the source's answer), so wide rows keep a batch's memory bounded.
   */
  batchChars?: number;
  /** Incremental reads: only rows with cursorField >= cursorValue, ordered by cursorField. */
  cursorField?: string;
  cursorValue?: string | null;
  /** Aborts the read: the run was canceled or its worker is stopping. */
  signal?: AbortSignal;
  /** Sources with live syncs: read as of this exported snapshot (LiveSlot.snapshot). */
  snapshot?: string;
}

/** A bounded count of a read's rows: SourceConnector.countRows. */
export interface CountOptions extends ReadOptions {
  /** Rows counted at most: past it the count says "more than limit". */
  limit: number;
  /** Longest the count may run on the source (its own statement timeout where it has one). */
  timeoutMs: number;
}

/** `rows` exactly, or, when `more`, more than `rows` (the count stopped at its limit). */
export interface BoundedCount {
  rows: number;
  more: boolean;
}

/** What a fingerprinted read needs besides the query: see SourceConnector.readFingerprinted. */
export interface FingerprintOptions {
  /** Prefixed to each row's text before hashing, so a new seed changes every fingerprint. */
  seed: string;
  /** The model's primary key column, whose value is parsed eagerly for every row. */
  primaryKey: string;
}

/** A batch whose rows stay unparsed until asked for (unchanged rows never are). */
export interface FingerprintedBatch {
  length: number;
  /** Per row, the primary key column's value exactly as `read()` would give it (undefined when the column is absent). */
  keyValues: unknown[];
  /** Per row, a hash of the seed and the whole row as the source renders it: equal rows, equal hashes. */
  fingerprints: string[];
  /** Row `index` exactly as `read()` would yield it; parsed on each call. */
  row(index: number): Row;
}

export type WriteAction = "insert" | "update" | "upsert" | "delete";

export interface WriteRecord {
  /** Opaque id the engine uses to match outcomes (the sync record's primary key). */
  key: string;
  action: WriteAction;
  /** The mapped destination payload. */
  payload: Row;
  /**
   * Set for destinations whose writes are not idempotent: the same for every attempt to deliver this
   * version of this record (retries, resumed runs, crashes), so a receiver can drop a repeat.
   */
  idempotencyKey?: string;
}

export interface WriteOptions {
  stream: Stream;
  /** Send the whole batch in one request/statement when the destination supports it. */
  batch: boolean;
  signal?: AbortSignal;
  /** Shared by a run's writes (see NewRows). */
  newRows?: NewRows;
}

/**
 * Whether a run's upserts are most likely of rows the destination does not hold yet (a first sync).
 * A SQL destination may then insert them plainly and merge only when a key conflicts; it sets `likely`
 * to false on a conflict, so the run's later writes merge at once.
 */
export interface NewRows {
  likely: boolean;
}

/**
 * One side of a record's log: a line (`POST https://…/hook`, `HTTP 422`, an error) and what was sent
 * or received, as text or as the JSON value itself (cheaper to store than its text inside a string).
 * The API shows it as text: the line, then the body on the next line.
 */
export interface LogPart {
  line: string;
  body?: unknown;
}

/**
 * What a record's sync record shows of its delivery (the reference's console prints `request` and
 * `response` as text): what was sent for the record and what the destination answered. Never a
 * credential: no auth headers, no secret configuration values (the engine scrubs them too).
 */
export interface RecordLog {
  request: LogPart;
  response: LogPart;
  level: "info" | "error";
}

/** What the destination said about one record; `log` is kept on the sync record. */
export interface WriteOutcome {
  key: string;
  ok: boolean;
  error?: string;
  /** HTTP-like status for retry decisions: 429, 5xx and timeouts (status 0 + retryable) are retried. */
  status?: number;
  retryable?: boolean;
  /** Seconds from a Retry-After header, when the destination sent one. */
  retryAfterSeconds?: number;
  /**
   * Set when the answer tells more than the record itself (an HTTP response). Without one, the
   * engine logs a failure itself and derives a success's log from the run (lib/engine/record-logs.ts).
   */
  log?: RecordLog;
}

/**
 * A column of rows passed as text: its name, and the PostgreSQL type (name, no modifiers) whose COPY
 * text its values are written as or, for a destination, that it takes as the JSON path's value would
 * be stored; a type with no such text keeps its own name, which matches nothing. `oid` is the
 * source's own type code (PostgreSQL's oid; MariaDB's protocol type), 0 for a destination.
 */
export interface TextColumn {
  name: string;
  oid: number;
  type: string;
}

/**
 * Rows as PostgreSQL COPY text lines (fields split by tabs, `\N` for null, backslash escapes), so a
 * source and a destination that both speak it pass rows along without parsing them (the engine's
 * pass-through path, lib/engine/pass-through). Lines carry no newline.
 */
export interface TextRowsSource {
  /**
   * The model query's columns, from planning it (no row is read); undefined when some column has no
   * text that decodes to the JSON path's value (the run then takes the JSON path).
   */
  columns(config: Row, options: ReadOptions): Promise<TextColumn[] | undefined>;
  /**
   * The rows `read()` yields, in the same order, as lines of `columns` fields, in batches of at most
   * batchSize (held as the wire's bytes where they came so: line-batch.ts).
   */
  read(config: Row, options: ReadOptions): AsyncIterable<LineBatch>;
  /** A line back into the row `read()` would have yielded for it. */
  decode(line: string, columns: readonly TextColumn[]): Row;
}

/** A destination table's columns and key, and whether lines can be upserted into it. */
export interface TextTarget {
  columns: TextColumn[];
  primaryKey: string[];
  /** False when the destination cannot take COPY text (e.g. no privilege for the staging table). */
  writable: boolean;
}

export interface TextRowsDestination {
  target(config: Row, stream: Stream): Promise<TextTarget>;
  /**
   * Optional: the COPY text `write()` sends for a value of the JSON path in a column of `type` (a
   * TextTarget column's type), or undefined where `write()` does not send such a column as COPY text.
   * With it, pass-through writes the values of templates and static mappings into its lines.
   */
  valueText?(type: string): ((value: unknown) => string) | undefined;
  /**
   * Upserts the lines (COPY text of `columns`, in that order; keys unique) in one transaction: all
   * rows or none. A failure returns the destination's error; the engine then sends the rows again
   * through `write()`, which pins the error on the rows that cause it. `likelyNew` (a first sync):
   * try a plain insert first, and upsert only when a key turns out to exist (`keysExisted`).
   */
  upsert(
    config: Row,
    stream: Stream,
    columns: readonly string[],
    lines: CopyLines,
    options?: { likelyNew?: boolean },
  ): Promise<{ ok: true; keysExisted?: boolean } | { ok: false; error: string }>;
}

export interface SourceConnector {
  definition: ConnectorDefinition;
  /** `signal`: the API's deadline (CONNECTOR_API_CALL_TIMEOUT_SECONDS); connectors that take it stop their requests on it. */
  check(config: Row, signal?: AbortSignal): Promise<CheckResult>;
  discover(config: Row, signal?: AbortSignal): Promise<Catalog>;
  /** A preview of a model query (SQL sources): at most `limit` rows, read-only, with a statement timeout. */
  query?(config: Row, query: string, limit: number, signal?: AbortSignal): Promise<QueryResult>;
  /** SQL sources: throws ConnectorError when `query` is not a model query they will run (one read-only SELECT). */
  checkQuery?(query: string): void;
  /** Streams the model's rows in batches of at most `batchSize`, never holding more than a batch. */
  read(config: Row, options: ReadOptions): AsyncIterable<Row[]>;
  /**
   * Optional: the same rows as `read()`, in the same batches and order, with each row's fingerprint
   * computed by the source system and its parsing deferred. The engine uses it for change detection
   * when present, so a re-run spends almost nothing on unchanged rows.
   */
  readFingerprinted?(
    config: Row,
    options: ReadOptions & { fingerprint: FingerprintOptions },
  ): AsyncIterable<FingerprintedBatch>;
  /** Optional: the rows as COPY text (see TextRowsSource). */
  textRows?: TextRowsSource;
  /**
   * Optional: how many rows `read()` with these options returns, counted by the source (never a
   * planner's guess) but bounded: it stops at `limit` rows and after `timeoutMs`, under the same
   * read-only, one-statement guards as the read, so counting never costs more than a bounded slice
   * of a read. Null when the time ran out. Measures a run's progress (lib/engine/run-estimate.ts).
   */
  countRows?(config: Row, options: CountOptions): Promise<BoundedCount | null>;
  /** ai_ml sources: run the model for each input row. */
  infer?(config: Row, inputs: Row[], signal?: AbortSignal): Promise<Row[]>;
  /** Optional: the source's changes as they commit (live syncs). */
  live?: LiveSource;
}

export interface DestinationConnector {
  definition: ConnectorDefinition;
  check(config: Row, signal?: AbortSignal): Promise<CheckResult>;
  discover(config: Row, signal?: AbortSignal): Promise<Catalog>;
  /** Writes a batch; returns exactly one outcome per input record, in any order. */
  write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]>;
  /** Optional: upserts of rows as COPY text (see TextRowsDestination). */
  textRows?: TextRowsDestination;
  /**
   * Optional: which of `keys` (objects holding the stream's primary key columns) have a row in the
   * stream now, one flag per key in order, in one query per call; it never writes. The update and
   * insert write modes use it; destinations without it are judged by the sync's own change tracking.
   */
  existingKeys?(config: Row, stream: Stream, keys: Row[], signal?: AbortSignal): Promise<boolean[]>;
  /** Releases pooled connections for this configuration (called at the end of a run). */
  close?(config: Row): Promise<void>;
}

export type Connector = SourceConnector | DestinationConnector;
