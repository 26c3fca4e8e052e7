// A Databricks SQL Statement Execution API 2.0 emulator, written from Databricks' published reference
// (api/workspace/statementexecution: executeStatement, getStatement, getStatementResultChunkN,
// cancelExecution; the error codes of its REST API): bearer access tokens (401 otherwise), POST
// /api/2.0/sql/statements on a known warehouse_id with INLINE + JSON_ARRAY (wait_timeout "0s" answers
// PENDING at once; 5s–50s waits), named `:parameters`, GET /api/2.0/sql/statements/{id} with
// status.state PENDING/RUNNING/SUCCEEDED/FAILED/CANCELED, the manifest (schema.columns type_name/
// type_text, chunks) and chunk 0, further chunks at next_chunk_internal_link
// (/result/chunks/{n}), POST …/cancel, 429 TOO_MANY_REQUESTS with Retry-After. Statements run on our
// real PostgreSQL (warehouse-pg.ts): backticked names become double-quoted, system.information_schema
// answers Databricks' type names (key_column_usage and table_constraints too, for primary keys).
// Writes as the Lakehouse destination sends them run too: INSERT, MERGE INTO (PostgreSQL 15 runs
// MERGE), DELETE on `catalog`.`schema`.`table` names, CAST(:p AS <Databricks type>) and parse_json.
// Chunks are small (chunkRows) so paging is exercised. Tests only.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
// No engine imports: the e2e specs start this emulator in Playwright's process too.
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";
import { pgArrayJson, PgStatement, replaceOutsideQuotes, type PgColumn, type PgStatementResult } from "./warehouse-pg";

export interface DatabricksEmulatorOptions {
  databaseUrl: string;
  token: string;
  warehouseId: string;
  /** The catalog name information_schema answers for the PostgreSQL database. */
  catalog?: string;
  chunkRows?: number;
}

interface Statement {
  id: string;
  state: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELED";
  pg: PgStatement;
  columns?: Record<string, unknown>[];
  chunks?: (string | null)[][][];
  rowCount?: number;
  error?: { error_code: string; message: string };
}

function catalogColumns(catalog: string): string {
  return `(SELECT '${catalog}'::text AS table_catalog, table_schema, table_name, column_name, ordinal_position, is_nullable,
  CASE data_type WHEN 'smallint' THEN 'SMALLINT' WHEN 'integer' THEN 'INT' WHEN 'bigint' THEN 'BIGINT' WHEN 'numeric' THEN 'DECIMAL'
       WHEN 'real' THEN 'FLOAT' WHEN 'double precision' THEN 'DOUBLE' WHEN 'boolean' THEN 'BOOLEAN' WHEN 'date' THEN 'DATE'
       WHEN 'timestamp without time zone' THEN 'TIMESTAMP_NTZ' WHEN 'timestamp with time zone' THEN 'TIMESTAMP'
       WHEN 'bytea' THEN 'BINARY' WHEN 'ARRAY' THEN 'ARRAY' WHEN 'jsonb' THEN 'VARIANT' WHEN 'json' THEN 'VARIANT' ELSE 'STRING' END AS data_type,
  CASE WHEN data_type = 'numeric' THEN 'decimal(' || numeric_precision || ',' || numeric_scale || ')' ELSE NULL END AS full_data_type
  FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')) AS columns`;
}

/** Spark SQL as PostgreSQL runs it: named parameters, backticked names, the catalog's views. */
function translate(sql: string, parameters: { name: string; value: string }[], catalog: string): { text: string; values: string[] } {
  const values: string[] = [];
  let text = replaceOutsideQuotes(sql, /(?<!:):([A-Za-z_]\w*)/g, (_m, name: string) => {
    const parameter = parameters.find((p) => p.name === name);
    values.push(parameter?.value ?? "");
    return `$${values.length}`;
  });
  text = text.replace(/`((?:[^`]|``)*)`/g, (_m, name: string) => `"${name.replaceAll("``", "`").replaceAll('"', '""')}"`);
  text = replaceOutsideQuotes(text, /\bsystem\.information_schema\.columns\b/gi, () => catalogColumns(catalog));
  text = replaceOutsideQuotes(text, /\bsystem\.information_schema\.(key_column_usage|table_constraints)\b/gi, (_m, view: string) =>
    view.toLowerCase() === "key_column_usage"
      ? `(SELECT '${catalog}'::text AS table_catalog, table_schema, table_name, column_name, ordinal_position, constraint_name FROM information_schema.key_column_usage) AS key_column_usage`
      : `(SELECT '${catalog}'::text AS table_catalog, table_schema, table_name, constraint_name, constraint_type FROM information_schema.table_constraints) AS table_constraints`,
  );
  // A three-part name's catalog is the emulator's one PostgreSQL database.
  text = text.replaceAll(`"${catalog}".`, "");
  // Databricks' type names in casts, as PostgreSQL spells them; parse_json makes jsonb.
  const types: Record<string, string> = { STRING: "text", DOUBLE: "double precision", FLOAT: "real", TIMESTAMP: "timestamptz", TIMESTAMP_NTZ: "timestamp", TINYINT: "smallint", BINARY: "bytea", VARIANT: "jsonb" };
  text = replaceOutsideQuotes(text, /\bAS (STRING|DOUBLE|FLOAT|TIMESTAMP_NTZ|TIMESTAMP|TINYINT|BINARY|VARIANT)\)/g, (_m, type: string) => `AS ${types[type]})`);
  text = replaceOutsideQuotes(text, /\bparse_json\((\$\d+)\)/g, (_m, p: string) => `(${p})::jsonb`);
  text = replaceOutsideQuotes(text, /\bsystem\.information_schema\.schemata\b/gi, () => `(SELECT '${catalog}'::text AS catalog_name, schema_name FROM information_schema.schemata) AS schemata`);
  return { text, values };
}

function columnOf(c: PgColumn, position: number): Record<string, unknown> {
  const named = (type_name: string, type_text = type_name) => ({ name: c.name, type_name, type_text, position });
  switch (c.type) {
    case "int2":
      return named("SHORT", "SMALLINT");
    case "int4":
      return named("INT");
    case "int8":
      return named("LONG", "BIGINT");
    case "numeric":
      return { ...named("DECIMAL", `DECIMAL(${c.precision ?? 38},${c.scale ?? 18})`), type_precision: c.precision ?? 38, type_scale: c.scale ?? 18 };
    case "float4":
      return named("FLOAT");
    case "float8":
      return named("DOUBLE");
    case "bool":
      return named("BOOLEAN");
    case "date":
      return named("DATE");
    case "timestamp":
      return named("TIMESTAMP_NTZ");
    case "timestamptz":
      return named("TIMESTAMP");
    case "bytea":
      return named("BINARY");
    case "json":
    case "jsonb":
      return named("VARIANT");
    default:
      return c.type.startsWith("_") ? named("ARRAY", `ARRAY<${c.type.slice(1).toUpperCase()}>`) : named("STRING");
  }
}

function wireValue(c: PgColumn, text: string): string {
  switch (c.type) {
    case "bool":
      return text === "t" ? "true" : "false";
    case "timestamp":
      return text.replace(" ", "T");
    case "timestamptz":
      return text.replace(" ", "T").replace(/\+00$/, "Z");
    case "bytea":
      return Buffer.from(text.slice(2), "hex").toString("base64");
    default:
      return c.type.startsWith("_") ? pgArrayJson(text, c.type.slice(1)) : text;
  }
}

function chunked(result: PgStatementResult, size: number): (string | null)[][][] {
  const rows = result.rows.map((cells) => cells.map((v, i) => (v === null ? null : wireValue(result.columns[i], v))));
  const chunks: (string | null)[][][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks.length > 0 ? chunks : [[]];
}

export async function startDatabricksEmulator(options: DatabricksEmulatorOptions) {
  const statements = new Map<string, Statement>();
  const chunkRows = options.chunkRows ?? 1000;
  const catalog = options.catalog ?? "main";
  const control = { throttleNext: 0, throttled: 0, chunkRequests: 0 };

  function chunkData(s: Statement, index: number): Record<string, unknown> {
    const chunks = s.chunks!;
    const offset = chunks.slice(0, index).reduce((n, c) => n + c.length, 0);
    const hasNext = index + 1 < chunks.length;
    return {
      chunk_index: index,
      row_offset: offset,
      row_count: chunks[index].length,
      data_array: chunks[index],
      ...(hasNext ? { next_chunk_index: index + 1, next_chunk_internal_link: `/api/2.0/sql/statements/${s.id}/result/chunks/${index + 1}?row_offset=${offset + chunks[index].length}` } : {}),
    };
  }

  function statementBody(s: Statement): Record<string, unknown> {
    if (s.state === "SUCCEEDED") {
      let offset = 0;
      return {
        statement_id: s.id,
        status: { state: s.state },
        manifest: {
          format: "JSON_ARRAY",
          schema: { column_count: s.columns!.length, columns: s.columns },
          total_chunk_count: s.chunks!.length,
          chunks: s.chunks!.map((c, i) => {
            const info = { chunk_index: i, row_offset: offset, row_count: c.length };
            offset += c.length;
            return info;
          }),
          total_row_count: s.rowCount,
          truncated: false,
        },
        result: chunkData(s, 0),
      };
    }
    return { statement_id: s.id, status: { state: s.state, ...(s.error ? { error: s.error } : {}) } };
  }

  async function handle(req: ReceivedRequest, res: ServerResponse) {
    if (control.throttleNext > 0) {
      control.throttleNext--;
      control.throttled++;
      return json(res, 429, { error_code: "TOO_MANY_REQUESTS", message: "Too many requests. Please wait a moment and try again." }, { "retry-after": "1" });
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) return json(res, 401, { error_code: "UNAUTHENTICATED", message: "Invalid access token." });
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/api/2.0/sql/statements") {
      const body = JSON.parse(req.body || "{}") as {
        statement?: string;
        warehouse_id?: string;
        disposition?: string;
        format?: string;
        wait_timeout?: string;
        parameters?: { name: string; value: string }[];
      };
      if (!body.statement) return json(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: "statement is required." });
      if (body.warehouse_id !== options.warehouseId) return json(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: `Warehouse ${String(body.warehouse_id)} does not exist.` });
      if ((body.disposition ?? "INLINE") !== "INLINE" || (body.format ?? "JSON_ARRAY") !== "JSON_ARRAY") {
        return json(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: "This emulator serves INLINE JSON_ARRAY results only." });
      }
      const wait = /^(\d+)s$/.exec(body.wait_timeout ?? "10s");
      const seconds = wait ? Number(wait[1]) : -1;
      if (seconds !== 0 && (seconds < 5 || seconds > 50)) return json(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: "wait_timeout must be 0s or between 5s and 50s." });
      const s: Statement = { id: randomUUID(), state: "RUNNING", pg: new PgStatement(options.databaseUrl) };
      statements.set(s.id, s);
      const { text, values } = translate(body.statement, body.parameters ?? [], catalog);
      const done = s.pg
        .run(text, values, 0)
        .then((result) => {
          if (s.state !== "RUNNING") return;
          s.columns = result.columns.map((c, i) => columnOf(c, i));
          s.chunks = chunked(result, chunkRows);
          s.rowCount = result.rows.length;
          s.state = "SUCCEEDED";
        })
        .catch((err: { message?: string; code?: string }) => {
          if (s.state !== "RUNNING") return;
          s.state = "FAILED";
          s.error = { error_code: "BAD_REQUEST", message: `[PARSE_OR_ANALYSIS_ERROR] ${err.message ?? "error"}` };
        });
      if (seconds === 0) return json(res, 200, { statement_id: s.id, status: { state: "PENDING" } });
      await Promise.race([done, new Promise((r) => setTimeout(r, seconds * 1000))]);
      return json(res, 200, statementBody(s));
    }
    const cancel = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/cancel$/.exec(url.pathname);
    if (req.method === "POST" && cancel) {
      const s = statements.get(cancel[1]);
      if (s && (s.state === "RUNNING" || s.state === "PENDING")) {
        s.state = "CANCELED";
        await s.pg.cancel().catch(() => undefined);
      }
      return json(res, 200, {});
    }
    const chunk = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/result\/chunks\/(\d+)$/.exec(url.pathname);
    if (req.method === "GET" && chunk) {
      const s = statements.get(chunk[1]);
      if (!s || s.state !== "SUCCEEDED") return json(res, 404, { error_code: "NOT_FOUND", message: `Statement ${chunk[1]} has no result.` });
      const index = Number(chunk[2]);
      if (index >= s.chunks!.length) return json(res, 400, { error_code: "INVALID_PARAMETER_VALUE", message: `Chunk ${index} does not exist.` });
      control.chunkRequests++;
      return json(res, 200, chunkData(s, index));
    }
    const status = /^\/api\/2\.0\/sql\/statements\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && status) {
      const s = statements.get(status[1]);
      if (!s) return json(res, 404, { error_code: "NOT_FOUND", message: `Statement ${status[1]} not found.` });
      return json(res, 200, statementBody(s));
    }
    json(res, 404, { error_code: "ENDPOINT_NOT_FOUND", message: "No API found." });
  }

  const server = await startHttpServer((req, res) => void handle(req, res));
  return { ...server, control, statements };
}
