// A Snowflake SQL API v2 emulator, written from Snowflake's published reference (developer-guide/
// sql-api: reference, authenticating, handling-responses, submitting-requests): POST
// /api/v2/statements (async=true answers 202 with a handle, code 333334), GET /api/v2/statements/
// {handle} (202 while running; 200 with resultSetMetaData {numRows, format jsonv2, rowType,
// partitionInfo} and partition 0's data; ?partition=N for the others; 422 with {code, message,
// sqlState} for a failed statement, 408 for one past its timeout), POST …/cancel. Auth: a bearer
// token with X-Snowflake-Authorization-Token-Type PROGRAMMATIC_ACCESS_TOKEN, or KEYPAIR_JWT signed
// with the user's key (iss ACCOUNT.USER.SHA256:fingerprint, sub ACCOUNT.USER); anything else 401.
// Values are jsonv2 strings: FIXED as decimals, DATE as epoch days, TIME/TIMESTAMP_NTZ as epoch
// seconds with 9 digits, TIMESTAMP_TZ with the offset in minutes + 1440, BINARY as hex, VARIANT as
// JSON. Statements run on our real PostgreSQL (warehouse-pg.ts); information_schema.columns answers
// Snowflake's type names. Partitions are small (partitionRows) so paging is exercised. Tests only.
import { randomUUID, type KeyObject } from "node:crypto";
import type { ServerResponse } from "node:http";
import { jwtVerify } from "jose";
// Relative imports, no engine: the e2e specs start this emulator in Playwright's process too.
import { publicKeyFingerprint } from "../../lib/connectors/snowflake/auth";
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";
import { epochSecondsText, pgArrayJson, PgStatement, positionalToPg, replaceOutsideQuotes, type PgColumn, type PgStatementResult } from "./warehouse-pg";

export interface SnowflakeEmulatorOptions {
  databaseUrl: string;
  /** The programmatic access token accepted. */
  token: string;
  /** Key-pair users: account, user and the public key set on the user. */
  keyPair?: { account: string; user: string; publicKey: KeyObject };
  /** Rows per result partition. */
  partitionRows?: number;
  /** The database, warehouse and role that exist. */
  database?: string;
  warehouse?: string;
  role?: string;
}

interface Statement {
  handle: string;
  state: "running" | "done" | "failed" | "timeout" | "canceled";
  pg: PgStatement;
  result?: { rowType: unknown[]; partitions: (string | null)[][][]; numRows: number };
  error?: { code: string; message: string; sqlState: string };
  timeout: number;
}

const CATALOG_COLUMNS = `(SELECT table_catalog, table_schema, table_name, column_name, ordinal_position, is_nullable, numeric_precision, numeric_scale,
  CASE WHEN data_type IN ('smallint','integer','bigint','numeric') THEN 'NUMBER'
       WHEN data_type IN ('real','double precision') THEN 'FLOAT'
       WHEN data_type = 'boolean' THEN 'BOOLEAN' WHEN data_type = 'date' THEN 'DATE'
       WHEN data_type LIKE 'time without%' THEN 'TIME'
       WHEN data_type = 'timestamp without time zone' THEN 'TIMESTAMP_NTZ'
       WHEN data_type = 'timestamp with time zone' THEN 'TIMESTAMP_TZ'
       WHEN data_type IN ('json','jsonb') THEN 'VARIANT' WHEN data_type = 'ARRAY' THEN 'ARRAY'
       WHEN data_type = 'bytea' THEN 'BINARY' ELSE 'TEXT' END AS data_type
  FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')) AS columns`;

/** Snowflake SQL as PostgreSQL runs it: bindings, CURRENT_VERSION(), the catalog's type names. */
function translate(sql: string): string {
  let out = positionalToPg(sql);
  out = replaceOutsideQuotes(out, /\bCURRENT_VERSION\(\)/gi, () => "'8.40.1'::text");
  out = replaceOutsideQuotes(out, /\binformation_schema\.columns\b/gi, () => CATALOG_COLUMNS);
  return out;
}

function rowTypeOf(c: PgColumn): Record<string, unknown> {
  const base = { name: c.name, nullable: true, length: null, byteLength: null, collation: null, database: "", schema: "", table: "" };
  switch (c.type) {
    case "int2":
    case "int4":
    case "int8":
      return { ...base, type: "fixed", precision: 38, scale: 0 };
    case "numeric":
      return { ...base, type: "fixed", precision: c.precision ?? 38, scale: c.scale ?? 9 };
    case "float4":
    case "float8":
      return { ...base, type: "real", precision: null, scale: null };
    case "bool":
      return { ...base, type: "boolean" };
    case "date":
      return { ...base, type: "date" };
    case "time":
      return { ...base, type: "time", scale: 9 };
    case "timestamp":
      return { ...base, type: "timestamp_ntz", scale: 9 };
    case "timestamptz":
      return { ...base, type: "timestamp_tz", scale: 9 };
    case "bytea":
      return { ...base, type: "binary" };
    case "json":
    case "jsonb":
      return { ...base, type: "variant" };
    default:
      return c.type.startsWith("_") ? { ...base, type: "array" } : { ...base, type: "text", length: 16777216 };
  }
}

/** One PostgreSQL text value in jsonv2's form for its column. */
function wireValue(c: PgColumn, text: string): string {
  switch (c.type) {
    case "float4":
    case "float8":
      return text === "Infinity" ? "inf" : text === "-Infinity" ? "-inf" : text;
    case "bool":
      return text === "t" ? "true" : "false";
    case "date":
      return String(Math.round(Date.parse(`${text}T00:00:00Z`) / 86_400_000));
    case "time": {
      const [h, m, s] = text.split(":");
      const [whole, fraction = ""] = s.split(".");
      return `${Number(h) * 3600 + Number(m) * 60 + Number(whole)}.${fraction.padEnd(9, "0")}`;
    }
    case "timestamp":
      return epochSecondsText(text);
    case "timestamptz":
      // Stored in UTC by the session: offset 0, written as 0 + 1440.
      return `${epochSecondsText(text)} 1440`;
    case "bytea":
      return text.slice(2).toUpperCase();
    default:
      return c.type.startsWith("_") ? pgArrayJson(text, c.type.slice(1)) : text;
  }
}

function partitioned(result: PgStatementResult, size: number): (string | null)[][][] {
  const rows = result.rows.map((cells) => cells.map((v, i) => (v === null ? null : wireValue(result.columns[i], v))));
  const partitions: (string | null)[][][] = [];
  for (let i = 0; i < rows.length; i += size) partitions.push(rows.slice(i, i + size));
  return partitions.length > 0 ? partitions : [[]];
}

export async function startSnowflakeEmulator(options: SnowflakeEmulatorOptions) {
  const statements = new Map<string, Statement>();
  const partitionRows = options.partitionRows ?? 1000;
  /** Answers 429 (Retry-After: 1) to the next `throttleNext` requests. */
  const control = { throttleNext: 0, throttled: 0, partitionRequests: 0 };

  async function authorized(req: ReceivedRequest): Promise<boolean> {
    const header = req.headers.authorization;
    const token = typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : "";
    const kind = String(req.headers["x-snowflake-authorization-token-type"] ?? "").toUpperCase();
    if (kind === "PROGRAMMATIC_ACCESS_TOKEN") return token === options.token;
    if (kind === "KEYPAIR_JWT" && options.keyPair) {
      const { account, user, publicKey } = options.keyPair;
      try {
        const { payload } = await jwtVerify(token, publicKey, { algorithms: ["RS256"] });
        const qualified = `${account}.${user}`.toUpperCase();
        const lifetime = Number(payload.exp) - Number(payload.iat);
        return payload.sub === qualified && payload.iss === `${qualified}.${publicKeyFingerprint(publicKey)}` && lifetime <= 3600;
      } catch {
        return false;
      }
    }
    return false;
  }

  function failure(res: ServerResponse, s: Statement) {
    if (s.state === "timeout") {
      return json(res, 408, { code: "000630", message: `Statement reached its statement or warehouse timeout of ${s.timeout} second(s) and was canceled.`, sqlState: "57014", statementHandle: s.handle });
    }
    if (s.state === "canceled") return json(res, 422, { code: "000604", message: "SQL execution canceled", sqlState: "57014", statementHandle: s.handle });
    return json(res, 422, { ...s.error, statementHandle: s.handle });
  }

  function running(res: ServerResponse, s: Statement) {
    json(res, 202, {
      code: "333334",
      message: "Asynchronous execution in progress. Use provided query id to perform query monitoring and management.",
      statementHandle: s.handle,
      statementStatusUrl: `/api/v2/statements/${s.handle}`,
    });
  }

  function resultPage(res: ServerResponse, s: Statement, partition: number) {
    const result = s.result!;
    if (partition >= result.partitions.length) return json(res, 422, { code: "391920", message: `Partition ${partition} does not exist.`, statementHandle: s.handle });
    if (partition > 0) {
      control.partitionRequests++;
      return json(res, 200, { data: result.partitions[partition] });
    }
    json(res, 200, {
      resultSetMetaData: {
        numRows: result.numRows,
        format: "jsonv2",
        rowType: result.rowType,
        partitionInfo: result.partitions.map((p) => ({ rowCount: p.length, uncompressedSize: JSON.stringify(p).length })),
      },
      data: result.partitions[0],
      code: "090001",
      statementStatusUrl: `/api/v2/statements/${s.handle}`,
      sqlState: "00000",
      statementHandle: s.handle,
      message: "Statement executed successfully.",
      createdOn: Date.now(),
    });
  }

  async function handle(req: ReceivedRequest, res: ServerResponse) {
    if (control.throttleNext > 0) {
      control.throttleNext--;
      control.throttled++;
      return json(res, 429, { code: "390505", message: "Too many requests; retry later." }, { "retry-after": "1" });
    }
    if (!(await authorized(req))) {
      return json(res, 401, { code: "390303", message: "Invalid OAuth access token. ", sqlState: "08001" });
    }
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/api/v2/statements") {
      const body = JSON.parse(req.body || "{}") as { statement?: string; timeout?: number; database?: string; warehouse?: string; role?: string; bindings?: Record<string, { type: string; value: string }> };
      if (!body.statement) return json(res, 400, { code: "391902", message: "Statement is missing." });
      for (const [field, expected, code] of [["database", options.database, "002043"], ["warehouse", options.warehouse, "000606"], ["role", options.role, "390189"]] as const) {
        if (expected && body[field] !== expected) {
          return json(res, 422, { code, message: `${field === "role" ? "Role" : field === "warehouse" ? "Warehouse" : "Database"} '${String(body[field])}' does not exist or not authorized.`, sqlState: "02000" });
        }
      }
      const s: Statement = { handle: randomUUID(), state: "running", pg: new PgStatement(options.databaseUrl), timeout: body.timeout ?? 172800 };
      statements.set(s.handle, s);
      const values = Object.keys(body.bindings ?? {})
        .sort((a, b) => Number(a) - Number(b))
        .map((k) => body.bindings![k].value);
      const done = s.pg
        .run(translate(body.statement), values, s.timeout)
        .then((result) => {
          if (s.state !== "running") return;
          s.result = { rowType: result.columns.map(rowTypeOf), partitions: partitioned(result, partitionRows), numRows: result.rows.length };
          s.state = "done";
        })
        .catch((err: { message?: string; code?: string }) => {
          if (s.state !== "running") return;
          if (err.code === "57014") s.state = /statement timeout/.test(err.message ?? "") ? "timeout" : "canceled";
          else {
            s.state = "failed";
            s.error = { code: "002003", message: `SQL compilation error:\n${err.message ?? "error"}`, sqlState: err.code ?? "42000" };
          }
        });
      if (url.searchParams.get("async") === "true") return running(res, s);
      await Promise.race([done, new Promise((r) => setTimeout(r, 45_000))]);
      if (s.state === "running") return running(res, s);
      return s.state === "done" ? resultPage(res, s, 0) : failure(res, s);
    }
    const cancel = /^\/api\/v2\/statements\/([^/]+)\/cancel$/.exec(url.pathname);
    if (req.method === "POST" && cancel) {
      const s = statements.get(cancel[1]);
      if (!s) return json(res, 404, { code: "000709", message: `Statement ${cancel[1]} not found` });
      if (s.state === "running") {
        s.state = "canceled";
        await s.pg.cancel().catch(() => undefined);
      }
      return json(res, 200, { code: "000000", sqlState: "00000", message: "successfully executed", statementHandle: s.handle, statementStatusUrl: `/api/v2/statements/${s.handle}` });
    }
    const status = /^\/api\/v2\/statements\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && status) {
      const s = statements.get(status[1]);
      if (!s) return json(res, 404, { code: "000709", message: `Statement ${status[1]} not found` });
      if (s.state === "running") return running(res, s);
      if (s.state !== "done") return failure(res, s);
      return resultPage(res, s, Number(url.searchParams.get("partition") ?? 0));
    }
    json(res, 404, { code: "390400", message: "Unknown endpoint." });
  }

  const server = await startHttpServer((req, res) => void handle(req, res));
  return { ...server, control, statements };
}
