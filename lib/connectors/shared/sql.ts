// SQL helpers shared by the PostgreSQL and MariaDB connectors: model query hygiene, column types to
// JSON Schema, and JSON-safe row values.
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "./errors";

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

/**
 * The model query with every string, quoted name and comment blanked (same length), so keywords and
 * `;` can be looked for in what remains. Handles '…' (with '' and backslash escapes), "…", `…`,
 * PostgreSQL's $tag$…$tag$, and -- , # and block comments.
 */
function codeOnly(query: string): string {
  let out = "";
  let i = 0;
  const blank = (from: number, to: number) => {
    out += " ".repeat(to - from);
    i = to;
  };
  while (i < query.length) {
    const ch = query[i];
    const next = query[i + 1];
    if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      while (j < query.length) {
        if (query[j] === "\\" && ch === "'") j += 2;
        else if (query[j] === ch && query[j + 1] === ch) j += 2;
        else if (query[j] === ch) break;
        else j++;
      }
      blank(i, Math.min(j + 1, query.length));
    } else if ((ch === "-" && next === "-") || ch === "#") {
      const end = query.indexOf("\n", i);
      blank(i, end === -1 ? query.length : end);
    } else if (ch === "/" && next === "*") {
      const end = query.indexOf("*/", i + 2);
      blank(i, end === -1 ? query.length : end + 2);
    } else if (ch === "$" && /^\$[A-Za-z_]?\w*\$/.test(query.slice(i))) {
      const tag = /^\$[A-Za-z_]?\w*\$/.exec(query.slice(i))![0];
      const end = query.indexOf(tag, i + tag.length);
      blank(i, end === -1 ? query.length : end + tag.length);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

const READING_START = /^[\s(]*(select|with)\b/i;

/**
 * A model query as the sources run it: one SELECT (or WITH … SELECT) statement that does not page
 * itself, normalized for wrapping as a subquery. The wrapping and the read-only transaction are what
 * stop writes; this gives the clear sentence, at create and update as at every read (a DDL
 * statement commits on its own in MariaDB, whatever the transaction says). Throws ConnectorError.
 */
export function modelSelect(query: string): string {
  const normalized = normalizeModelQuery(query);
  const code = codeOnly(normalized);
  if (code.includes(";")) {
    throw new ConnectorError("The query must be a single statement: remove the `;` and everything after it.");
  }
  if (!READING_START.test(code)) {
    throw new ConnectorError("The query must be a SELECT (or WITH … SELECT) statement: models only read rows.");
  }
  assertNoTrailingPaging(normalized);
  return normalized;
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
  if (/\[\]$|^array$|^_/.test(t)) schema = { type: "array" };
  else if (/^(smallint|integer|int|int2|int4|mediumint|tinyint|year|serial|smallserial)\b/.test(t)) {
    schema = t.startsWith("tinyint(1)") ? { type: "boolean" } : { type: "integer" };
  } else if (/^(bigint|int8|bigserial|numeric|decimal)\b/.test(t)) schema = { type: "string" };
  else if (/^(real|double|float|float4|float8)\b/.test(t)) schema = { type: "number" };
  else if (/^(boolean|bool|bit\(1\))/.test(t)) schema = { type: "boolean" };
  else if (/^(json|jsonb)\b/.test(t)) schema = {};
  else if (/^(timestamp|datetime)/.test(t)) schema = { type: "string", format: "date-time" };
  else if (/^date\b/.test(t)) schema = { type: "string", format: "date" };
  else schema = { type: "string" };
  if (column.nullable && typeof schema.type === "string") schema = { ...schema, type: [schema.type, "null"] };
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

/** Dates become ISO strings, bytes base64, bigints strings, so rows survive JSON as they are. */
export function jsonSafeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? value.toString() : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (Array.isArray(value)) return value.map(jsonSafeValue);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafeValue(v)]));
}

export function jsonSafeRow(row: Row): Row {
  // for…in: no keys array per row (this runs for every row a SQL source reads).
  for (const key in row) {
    const value = row[key];
    if (value !== null && (typeof value === "object" || typeof value === "bigint")) row[key] = jsonSafeValue(value);
  }
  return row;
}
