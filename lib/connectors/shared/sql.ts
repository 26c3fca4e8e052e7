// SQL helpers shared by the SQL connectors (PostgreSQL, MariaDB, ClickHouse): model query hygiene, column types to
// JSON Schema, and JSON-safe row values.
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "./errors";
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

export type SqlDialect = "postgresql" | "redshift" | "mariadb" | "bigquery" | "trino" | "snowflake" | "databricks" | "clickhouse" | "oracle";

/**
 * How each dialect tokenizes what codeOnly blanks (BigQuery: GoogleSQL; trino: Athena's and Presto's
 * engines; databricks: Spark SQL; redshift: PostgreSQL's lexer with backslash escapes in strings).
 * Warehouses other than ClickHouse are checked as text only: they parse the statement themselves.
 */
interface DialectTraits {
  /** Names are quoted with backticks (else with double quotes). */
  backtickNames: boolean;
  /** Backslash escapes inside strings (and double-quoted strings, where names use backticks). */
  backslashEscapes: boolean;
  /** `#` starts a line comment. */
  hashComments: boolean;
  /** `--` is a comment only before whitespace (MariaDB). */
  dashNeedsSpace: boolean;
  /** Block comments nest (PostgreSQL). */
  nestedComments: boolean;
  /** `/*! … *\/` runs as code (MariaDB). */
  executableComments: boolean;
  /** $tag$…$tag$ strings and E'…' escapes (PostgreSQL). */
  dollarQuotes: boolean;
  /** Untagged $$…$$ strings (Snowflake). */
  plainDollarStrings: boolean;
  /** `//` starts a line comment (Snowflake). */
  slashComments: boolean;
  /** Triple-quoted strings and r/b/rb prefixes (GoogleSQL); no doubled-quote escapes. */
  googleStrings: boolean;
  /** r'…' strings without any escape (Spark SQL). */
  rawStrings: boolean;
  /** q'<delim>…<delim>' alternative-quote strings, also nq'…' (Oracle). */
  altQuotes?: boolean;
}

/** ClickHouse has its own tokenizer (clickhouseCodeOnly): its versions read comments and strings differently. */
const TRAITS: Record<Exclude<SqlDialect, "clickhouse">, DialectTraits> = {
  postgresql: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: true, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  redshift: { backtickNames: false, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: true, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  mariadb: { backtickNames: true, backslashEscapes: true, hashComments: true, dashNeedsSpace: true, nestedComments: false, executableComments: true, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  bigquery: { backtickNames: true, backslashEscapes: true, hashComments: true, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: true, rawStrings: false },
  trino: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  snowflake: { backtickNames: false, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: true, slashComments: true, googleStrings: false, rawStrings: false },
  databricks: { backtickNames: true, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: true },
  // Oracle: standard quoting, `--` and unnested block comments, and q'[…]' alternative-quote strings.
  oracle: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false, altQuotes: true },
};

/** How one reading of the query tokenizes it; a loose reading lets an unclosed string or comment pass. */
interface Reading {
  traits: DialectTraits;
  strict: boolean;
}

/**
 * The readings a query must pass. A PostgreSQL server reads backslashes as escapes in '…' when
 * standard_conforming_strings is off (a role or database may set it so), Redshift always does: the
 * query must be one SELECT both ways. The other reading is loose: a string it leaves unclosed is an
 * error on a server reading that way, not hidden code.
 */
function readings(dialect: SqlDialect): (Reading | undefined)[] {
  if (dialect !== "postgresql" && dialect !== "redshift") return [undefined];
  const other = dialect === "postgresql" ? "redshift" : "postgresql";
  return [
    { traits: TRAITS[dialect], strict: true },
    { traits: TRAITS[other], strict: false },
  ];
}

/** The r/b/rb prefix written against a quote (GoogleSQL), or r (Spark SQL); "" when none. */
function stringPrefix(query: string, quoteAt: number, t: DialectTraits): string {
  if (!t.googleStrings && !t.rawStrings) return "";
  const m = (t.googleStrings ? /(?:^|[^\w$])([rb]{1,2})$/i : /(?:^|[^\w$])(r)$/i).exec(query.slice(Math.max(0, quoteAt - 3), quoteAt));
  return m?.[1] ?? "";
}

const DOLLAR_TAG = /^\$(?:[A-Za-z_]\w*)?\$/;

/** Oracle's bracket delimiters of q'…' strings close with their partner; any other delimiter closes itself. */
const ALT_QUOTE_PARTNER: Record<string, string> = { "[": "]", "(": ")", "{": "}", "<": ">" };

/**
 * Where an Oracle alternative-quote string (q'<d>…<d>' or nq'<d>…<d>') whose quote is at `quoteAt`
 * ends, one past its final quote; undefined when the quote does not open one (no q, nq before it as
 * a token of its own), -1 when it is never closed. Read as a plain string, `q'[']'` would end at the
 * second quote and show the rest of the string as code (or hide code after it).
 */
function altQuoteEnd(query: string, quoteAt: number): number | undefined {
  if (!/(?:^|[^\w$#])n?q$/i.test(query.slice(Math.max(0, quoteAt - 3), quoteAt))) return undefined;
  const open = query.codePointAt(quoteAt + 1);
  // Oracle refuses a space, tab or line break as the delimiter: refused here as unclosed.
  if (open === undefined || /\s/.test(String.fromCodePoint(open))) return -1;
  const delimiter = String.fromCodePoint(open);
  const close = (ALT_QUOTE_PARTNER[delimiter] ?? delimiter) + "'";
  const end = query.indexOf(close, quoteAt + 1 + delimiter.length);
  return end === -1 ? -1 : end + close.length;
}

/** MariaDB takes `--` as a comment only before whitespace or a control character (or the end). */
const MARIADB_LINE_COMMENT_END = /^[\s\x00-\x1f\x7f]?$/;

/** Where a MariaDB block comment starting at `from` ends: at the first `*\/` (they do not nest); -1 when unclosed. */
function flatCommentEnd(query: string, from: number): number {
  const end = query.indexOf("*/", from + 2);
  return end === -1 ? -1 : end + 2;
}

/**
 * Where a PostgreSQL block comment starting at `from` ends: its comments nest, so `/* /* *\/ ' *\/`
 * is one comment (ending it at the first `*\/` would take the quote for code and hide what
 * follows); -1 when unclosed.
 */
function nestedCommentEnd(query: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < query.length) {
    if (query.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (query.startsWith("*/", i)) {
      i += 2;
      if (--depth === 0) return i;
    } else i++;
  }
  return -1;
}

/**
 * The model query with every string, quoted name and comment blanked (same length), so keywords,
 * brackets and `;` can be looked for in what remains, tokenized as the database will: MariaDB
 * escapes with backslashes and comments with `#` and `-- ` (a space after), PostgreSQL has
 * $tag$…$tag$ and E'…' strings. MariaDB's executable comments (`/*! … *\/`) run as code, so they
 * are refused rather than blanked.
 */
function codeOnly(query: string, dialect: SqlDialect, keepQuotedNames = false, reading?: Reading): string {
  if (dialect === "clickhouse") return clickhouseCodeOnly(query, keepQuotedNames);
  const t = reading?.traits ?? TRAITS[dialect];
  // An unclosed string or comment hides the rest of the query from this check; the database may read
  // it otherwise (a GoogleSQL ''' is an empty string when no ''' closes it), so it is refused.
  const unclosed = () => {
    if (reading?.strict !== false) throw new ConnectorError("The query has a string, quoted name or comment that is never closed.");
  };
  let out = "";
  let i = 0;
  const blank = (from: number, to: number) => {
    out += " ".repeat(to - from);
    i = to;
  };
  while (i < query.length) {
    const ch = query[i];
    const next = query[i + 1];
    const altEnd = t.altQuotes && ch === "'" ? altQuoteEnd(query, i) : undefined;
    if (altEnd !== undefined) {
      if (altEnd === -1) unclosed();
      blank(i, altEnd === -1 ? query.length : altEnd);
    } else if (ch === "'" || ch === '"' || (t.backtickNames && ch === "`")) {
      const prefix = ch === "`" ? "" : stringPrefix(query, i, t);
      const raw = /r/i.test(prefix);
      const close = t.googleStrings && ch !== "`" && query.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const eString = t.dollarQuotes && ch === "'" && /[eE]/.test(query[i - 1] ?? "") && !/\w/.test(query[i - 2] ?? "");
      // Backslashes escape inside strings, not inside double-quoted names (Snowflake) nor Spark's raw
      // strings; GoogleSQL escapes in every quoted token, its raw strings included (a quote after a
      // backslash does not close them), and doubles no quote.
      const escapes = t.googleStrings || (ch !== "`" && !(raw && t.rawStrings) && ((t.backslashEscapes && (ch === "'" || t.backtickNames)) || eString));
      let j = i + close.length;
      while (j < query.length) {
        if (escapes && query[j] === "\\") j += 2;
        else if (!t.googleStrings && query[j] === ch && query[j + 1] === ch) j += 2;
        else if (query.startsWith(close, j)) break;
        else j++;
      }
      if (j >= query.length) unclosed();
      // Whether a backslash keeps a GoogleSQL raw string open is read differently by tools: refused.
      if (raw && t.googleStrings && query.slice(i + close.length, j).includes("\\" + ch)) {
        throw new ConnectorError(`The query must not put a backslash before a quote in a raw string (r${ch}…${ch}): write the string without the r.`);
      }
      const quotedName = t.backtickNames ? ch === "`" : ch === '"';
      if (keepQuotedNames && quotedName) {
        // A quoted name stays visible (unquoted), so "pg_read_file"(…) is seen as a call.
        if (t.dollarQuotes && /u&$/i.test(out)) throw new ConnectorError('The query must not use Unicode-escaped names (U&"…"): write the name itself.');
        const name = query.slice(i + 1, j).replaceAll(ch + ch, ch);
        out += ` ${name} `;
        i = Math.min(j + 1, query.length);
      } else blank(i, Math.min(j + close.length, query.length));
    } else if (
      (ch === "-" && next === "-" && (!t.dashNeedsSpace || MARIADB_LINE_COMMENT_END.test(query[i + 2] ?? ""))) ||
      (t.hashComments && ch === "#") ||
      (t.slashComments && ch === "/" && next === "/")
    ) {
      const end = query.indexOf("\n", i);
      blank(i, end === -1 ? query.length : end);
    } else if (ch === "/" && next === "*") {
      if (t.executableComments && /^\/\*M?!/.test(query.slice(i, i + 4))) {
        throw new ConnectorError("The query must not contain executable comments (/*! … */).");
      }
      const end = t.nestedComments ? nestedCommentEnd(query, i) : flatCommentEnd(query, i);
      if (end === -1) unclosed();
      blank(i, end === -1 ? query.length : end);
    } else if (t.plainDollarStrings && ch === "$" && next === "$" && !/\w/.test(query[i - 1] ?? "")) {
      const end = query.indexOf("$$", i + 2);
      blank(i, end === -1 ? query.length : end + 2);
    } else if (t.dollarQuotes && ch === "$" && DOLLAR_TAG.test(query.slice(i, i + 64)) && !/\w/.test(query[i - 1] ?? "")) {
      const tag = DOLLAR_TAG.exec(query.slice(i, i + 64))![0];
      const end = query.indexOf(tag, i + tag.length);
      blank(i, end === -1 ? query.length : end + tag.length);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/**
 * codeOnly for ClickHouse: '…' strings and "…" / `…` names, each with backslash escapes and doubled
 * quotes; `--` comments whatever follows; block comments flat. What ClickHouse versions read
 * differently is refused rather than guessed: nested block comments, `#` comments (newer servers
 * only) and `$$` strings (newer servers only) would hide code from this check on one server and not
 * on another.
 */
function clickhouseCodeOnly(query: string, keepQuotedNames: boolean): string {
  let out = "";
  let i = 0;
  while (i < query.length) {
    const ch = query[i];
    if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      while (j < query.length) {
        if (query[j] === "\\") j += 2;
        else if (query[j] === ch && query[j + 1] === ch) j += 2;
        else if (query[j] === ch) break;
        else j++;
      }
      if (keepQuotedNames && ch !== "'") out += ` ${query.slice(i + 1, j).replace(/\\(.)/g, "$1")} `;
      else out += " ".repeat(Math.min(j + 1, query.length) - i);
      i = Math.min(j + 1, query.length);
    } else if (ch === "-" && query[i + 1] === "-") {
      const end = query.indexOf("\n", i);
      out += " ".repeat((end === -1 ? query.length : end) - i);
      i = end === -1 ? query.length : end;
    } else if (ch === "/" && query[i + 1] === "*") {
      const found = flatCommentEnd(query, i);
      const end = found === -1 ? query.length : found;
      if (query.slice(i + 2, end).includes("/*")) throw new ConnectorError("The query must not nest comments (/* /* */ */).");
      out += " ".repeat(end - i);
      i = end;
    } else if (ch === "#" || ch === "$") {
      throw new ConnectorError(`The query must not use "${ch}" outside strings: write comments with -- or /* */ and strings with '…'.`);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
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
