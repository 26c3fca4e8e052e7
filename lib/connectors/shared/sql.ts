// SQL helpers shared by the SQL connectors (PostgreSQL, MariaDB, ClickHouse): model query hygiene, column types to
// JSON Schema, and JSON-safe row values. The per-dialect lexing the model-query check reads with is sql-lexing.ts.
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "./errors";
import { codeOnly, readings, type Reading, type SqlDialect } from "./sql-lexing";
import { floatValue, JsonNumber } from "./values";

/** Trailing `;`, whitespace and line comments are dropped so the query can be wrapped as a subquery. */
export function normalizeModelQuery(query: string): string {
  let q = query.trim();
  for (;;) {
    const next = q.replace(/--[^\n]*$/, "").replace(/;\s*$/, "").trim();
    if (next === q) break;
    q = next;
  }
  if (q === "") throw new ConnectorError("The query is empty.");
  return q;
}

const READING_START = /^[\s(]*(select|with)\b/i;
/** Clauses that make a SELECT write (INTO a file, variable or new table) or lock rows. */
const WRITING_CLAUSE = /\b(into|for\s+(update|share|no\s+key\s+update|key\s+share)|lock\s+in\s+share\s+mode|procedure)\b/i;

/** Brackets must close in order, so the query cannot close the subquery it is wrapped in. */
function balanced(code: string): boolean {
  let depth = 0;
  for (const ch of code) {
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * A model query as the sources run it: one SELECT (or WITH … SELECT) statement that does not page
 * itself, write or lock, normalized for wrapping as a subquery (wrap it with `subquery()`). The
 * wrapping and the read-only transaction stop writes; this check keeps the query inside the
 * wrapping and gives the clear sentence, at create and update as at every read (a DDL statement
 * commits on its own in MariaDB, whatever the transaction says). Throws ConnectorError.
 */
export function modelSelect(query: string, dialect: SqlDialect): string {
  const normalized = normalizeModelQuery(query);
  for (const reading of readings(dialect)) assertOneSelect(normalized, dialect, reading);
  return normalized;
}

/** The checks of modelSelect in one reading of the query. */
function assertOneSelect(normalized: string, dialect: SqlDialect, reading: Reading | undefined): void {
  const code = codeOnly(normalized, dialect, false, reading);
  if (code.includes(";")) {
    throw new ConnectorError("The query must be a single statement: remove the `;` and everything after it.");
  }
  if (!READING_START.test(code)) {
    throw new ConnectorError("The query must be a SELECT (or WITH … SELECT) statement: models only read rows.");
  }
  if (!balanced(code)) throw new ConnectorError("The query's parentheses do not match: each ( needs its ).");
  const writing = WRITING_CLAUSE.exec(code);
  if (writing) {
    throw new ConnectorError(`The query must not use ${writing[0].replace(/\s+/g, " ").toUpperCase()}: models only read rows, without locking them.`);
  }
  assertNoForbiddenCall(normalized, dialect, reading);
  assertNoTrailingPaging(normalized);
}

const POSTGRESQL_FORBIDDEN =
  /\b(pg_read_file|pg_read_binary_file|pg_stat_file|pg_ls_\w+|pg_file_\w+|pg_logdir_ls|lo_\w+|loread|lowrite|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|pg_create_restore_point|pg_start_backup|pg_stop_backup|pg_backup_start|pg_backup_stop|pg_log_backend_memory_contexts|dblink\w*|query_to_xml\w*|cursor_to_xml\w*|ts_stat|ts_rewrite|set_config)\s*\(/i;

/** Snowflake SYSTEM$ functions that only read (Snowflake's function reference); every other one is refused. */
const SNOWFLAKE_READING_SYSTEM_FUNCTIONS = [
  "typeof",
  "clustering_information",
  "clustering_depth",
  "clustering_ratio",
  "explain_plan_json",
  "explain_json_to_text",
  "get_tag",
  "stream_has_data",
  "pipe_status",
  "allowlist",
  "whitelist",
];

/**
 * Functions a model may not call, though a read-only transaction lets them run: they reach the
 * database server's files, large objects (lo_import reads a server file, and is not refused by READ
 * ONLY on PostgreSQL 15), other sessions or its configuration, or run SQL given as a string (which
 * this check cannot see into). They need a superuser or a role such as pg_read_server_files (on
 * MariaDB the FILE privilege); a connector's check warns when its credentials have those.
 */
const FORBIDDEN_FUNCTIONS: Record<SqlDialect, RegExp> = {
  postgresql: POSTGRESQL_FORBIDDEN,
  // Redshift is checked as PostgreSQL both ways (readings), so also with PostgreSQL's list.
  redshift: POSTGRESQL_FORBIDDEN,
  mariadb: /\b(load_file|sys_exec|sys_eval|sys_get|sys_set)\s*\(/i,
  // A warehouse runs the query on its own servers, with the credentials' grants: no local files to reach.
  bigquery: /(?!)/,
  trino: /(?!)/,
  // Table functions that reach files, URLs or other servers, by family (readonly=1 refuses every
  // table function, but a user whose profile is readonly=2 may call them; new versions add members
  // such as icebergS3, deltaLakeLocal, arrowFlight, ytsaurus).
  clickhouse:
    /\b(file\w*|url|urlCluster|remote\w*|cluster\w*|mysql\w*|postgresql\w*|mongodb\w*|redis\w*|sqlite\w*|jdbc|odbc|hdfs\w*|s3\w*|gcs\w*|azure\w*|input\w*|executable\w*|deltaLake\w*|hudi\w*|iceberg\w*|paimon\w*|hive\w*|arrowFlight\w*|arrowflight\w*|ytsaurus\w*|dictionary)\s*\(/i,
  // Every SYSTEM$ function but a few that only read (several change the account: SYSTEM$ENABLE_
  // BEHAVIOR_CHANGE_BUNDLE, SYSTEM$CANCEL_QUERY…), and IDENTIFIER(…), which can name one from a string.
  snowflake: new RegExp(`(?<![\\w$])(system\\$(?!(?:${SNOWFLAKE_READING_SYSTEM_FUNCTIONS.join("|")})\\s*\\()[\\w$]+|identifier)\\s*\\(`, "i"),
  // Calls into the JVM of the warehouse, its secrets and outbound HTTP.
  databricks: /\b(reflect|java_method|try_reflect|secret|try_secret|http_request)\s*\(/i,
  // Packages that reach the server's files and the network (UTL_FILE, UTL_HTTP…), run SQL given as a
  // string or change the session (DBMS_XMLGEN, DBMS_SQL…), the URI types and factory that open files,
  // URLs or other rows by path (HTTPURITYPE, DBURITYPE, XDBURITYPE, URIFACTORY), Oracle Text's
  // packages (CTXSYS.*, some fetch URLs) and BFILENAME. A second line of defence: the role comes first.
  oracle: /\b(utl_\w+|dbms_\w+|httpuritype|dburitype|xdburitype|urifactory|ctxsys|ctx_\w+|bfilename)\s*[.(]/i,
};

/** Throws when the query calls a function of FORBIDDEN_FUNCTIONS (looked for outside strings and comments, inside quoted names). */
function assertNoForbiddenCall(query: string, dialect: SqlDialect, reading: Reading | undefined): void {
  const call = FORBIDDEN_FUNCTIONS[dialect].exec(codeOnly(query, dialect, true, reading));
  if (!call) return;
  throw new ConnectorError(
    `The query must not call ${call[1].toLowerCase()}(): models read the database's rows, not the server's files, large objects, settings or other sessions.`,
  );
}

/** `(query\n)`: the line break keeps a trailing comment in the query from hiding the closing bracket. */
export function subquery(query: string): string {
  return `(${query}\n)`;
}

// The service adds its own LIMIT/OFFSET (previews) and reads with cursors, so a model query that
// already pages itself would silently drop rows. The reference refuses these; so do we.
const TRAILING_PAGING =
  /\b(limit\s+(\d+|all|\$\d+|\?)(\s*,\s*\d+)?|offset\s+(\d+|\$\d+|\?)(\s+rows?)?|fetch\s+(first|next)\s+\d*\s*rows?\s+only)\s*$/i;

export function assertNoTrailingPaging(query: string): void {
  if (TRAILING_PAGING.test(normalizeModelQuery(query))) {
    throw new ConnectorError(
      "The query must not end with LIMIT or OFFSET: the service pages the results itself. Remove the clause and try again.",
    );
  }
}

export interface ColumnInfo {
  name: string;
  /** The type as the database names it, e.g. `integer`, `character varying(255)`, `bigint`. */
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/**
 * JSON Schema of one column as read by our sources. 64-bit integers and decimals are read as strings
 * (JSON numbers would lose precision), so their schema says string; `$comment` keeps the SQL type.
 */
export function columnJsonSchema(column: ColumnInfo): JsonSchema {
  const t = column.type.toLowerCase();
  let schema: JsonSchema;
  // Oracle's catalog names types in upper case: its DATE holds a time, its NUMBER(p,0) an integer.
  if (column.type === "DATE") schema = { type: "string", format: "date-time" };
  else if (/^NUMBER\((\d+|\*),0\)$/.test(column.type)) schema = { type: ["integer", "string"] };
  else if (/^BINARY_(DOUBLE|FLOAT)$/.test(column.type)) schema = { type: "number" };
  else if (/\[\]$|^array$|^_/.test(t)) schema = { type: "array" };
  else if (/^(smallint|integer|int|int2|int4|mediumint|tinyint|year|serial|smallserial)\b/.test(t)) {
    schema = t.startsWith("tinyint(1)") ? { type: "boolean" } : { type: "integer" };
  } else if (/^(bigint|int8|bigserial)\b/.test(t)) {
    // A number when exact as one (|n| ≤ 2^53 − 1), else its digits as a string.
    schema = { type: ["integer", "string"] };
  } else if (/^(numeric|decimal)\b/.test(t)) schema = { type: "string" };
  else if (/^(real|double|float|float4|float8)\b/.test(t)) schema = { type: "number" };
  else if (/^(boolean|bool|bit\(1\))/.test(t)) schema = { type: "boolean" };
  else if (/^(json|jsonb)\b/.test(t)) schema = {};
  else if (/^(timestamp|datetime)/.test(t)) schema = { type: "string", format: "date-time" };
  else if (/^date\b/.test(t)) schema = { type: "string", format: "date" };
  else schema = { type: "string" };
  if (column.nullable && schema.type !== undefined) schema = { ...schema, type: [...[schema.type].flat(), "null"] };
  return { ...schema, $comment: column.type };
}

export function tableJsonSchema(columns: ColumnInfo[], requiredColumns: string[] = []): JsonSchema {
  return {
    type: "object",
    properties: Object.fromEntries(columns.map((c) => [c.name, columnJsonSchema(c)])),
    ...(requiredColumns.length > 0 ? { required: requiredColumns } : {}),
  };
}

/** Columns a writer must provide: NOT NULL without a default. */
export function requiredForWrite(columns: ColumnInfo[]): string[] {
  return columns.filter((c) => !c.nullable && !c.hasDefault).map((c) => c.name);
}

/** Dates become ISO strings, bytes `\x` hex, bigints numbers when exact (else strings), so rows survive JSON as they are. */
export function jsonSafeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number") return floatValue(value);
    if (typeof value !== "bigint") return value;
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  // Already exact (shared/values.ts).
  if (value instanceof JsonNumber) return value;
  // An invalid date has no value to show; its text says so instead of a NULL the source never held.
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  // Bytes as PostgreSQL writes bytea (`\x` and hex): one form for every source, read back exactly by bytea.
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  if (Array.isArray(value)) return value.map(jsonSafeValue);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafeValue(v)]));
}

export function jsonSafeRow(row: Row): Row {
  // for…in: no keys array per row (this runs for every row a SQL source reads).
  for (const key in row) {
    const value = row[key];
    if (value !== null && (typeof value === "object" || typeof value === "bigint")) row[key] = jsonSafeValue(value);
    // NaN and the infinities as their text (values.ts): JSON would turn them into null.
    else if (typeof value === "number" && value - value !== 0) row[key] = floatValue(value);
  }
  return row;
}
