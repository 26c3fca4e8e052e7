// A BigQuery REST API v2 emulator with its OAuth token endpoint, written from the published
// reference (cloud.google.com/bigquery/docs/reference/rest: jobs.insert with a client job id, dry
// runs, named query parameters, jobTimeoutMs; jobs.getQueryResults with maxResults, pageToken,
// timeoutMs long polling and formatOptions.useInt64Timestamp; jobs.cancel; datasets.get/list; the
// error body {error: {code, message, errors: [{reason}], status}}; 429 and 403 rateLimitExceeded).
// Tokens only for an assertion signed by the service account's key (400 invalid_grant otherwise).
// SQL runs on a real PostgreSQL database (each dataset a schema), after a small GoogleSQL →
// PostgreSQL translation; results come back as BigQuery prints them (f/v rows of strings). Tests only.
import { createVerify, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import pg from "pg";
import { parse as parsePgArray } from "postgres-array";
// Not ./common: that one brings the engine's Loader, which Playwright specs (which start this
// emulator too) cannot import.
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";

function parseBody(req: ReceivedRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

interface Field {
  name: string;
  type: string;
  mode: "NULLABLE" | "REPEATED";
}

interface Job {
  fields: Field[];
  rows: { f: { v: unknown }[] }[];
  done: boolean;
  cancelled: boolean;
}

/** PostgreSQL type oid → BigQuery type (REPEATED for arrays). */
const TYPES: Record<number, [string, boolean?]> = {
  16: ["BOOL"], 17: ["BYTES"], 20: ["INT64"], 21: ["INT64"], 23: ["INT64"], 700: ["FLOAT64"], 701: ["FLOAT64"], 1700: ["NUMERIC"],
  1082: ["DATE"], 1114: ["DATETIME"], 1184: ["TIMESTAMP"], 1083: ["TIME"], 114: ["JSON"], 3802: ["JSON"],
  1005: ["INT64", true], 1007: ["INT64", true], 1016: ["INT64", true], 1009: ["STRING", true], 1015: ["STRING", true], 1021: ["FLOAT64", true], 1022: ["FLOAT64", true],
};

const BQ_TYPE_SQL = `CASE udt_name WHEN 'int2' THEN 'INT64' WHEN 'int4' THEN 'INT64' WHEN 'int8' THEN 'INT64' WHEN 'numeric' THEN 'NUMERIC'
  WHEN 'float4' THEN 'FLOAT64' WHEN 'float8' THEN 'FLOAT64' WHEN 'bool' THEN 'BOOL' WHEN 'date' THEN 'DATE' WHEN 'timestamp' THEN 'DATETIME'
  WHEN 'timestamptz' THEN 'TIMESTAMP' WHEN 'time' THEN 'TIME' WHEN 'bytea' THEN 'BYTES' WHEN 'json' THEN 'JSON' WHEN 'jsonb' THEN 'JSON'
  WHEN '_int4' THEN 'ARRAY<INT64>' WHEN '_int8' THEN 'ARRAY<INT64>' WHEN '_text' THEN 'ARRAY<STRING>' ELSE 'STRING' END`;

const CAST_TYPES: Record<string, string> = { INT64: "bigint", FLOAT64: "float8", STRING: "text", BOOL: "boolean", DATETIME: "timestamp", TIMESTAMP: "timestamptz", NUMERIC: "numeric", BIGNUMERIC: "numeric", BYTES: "bytea", DATE: "date", TIME: "time" };

/** A scalar PostgreSQL text as BigQuery's REST API prints the type. */
function render(type: string, text: string | null): unknown {
  if (text === null) return null;
  switch (type) {
    case "BOOL":
      return text === "t" ? "true" : "false";
    case "BYTES":
      return Buffer.from(text.slice(2), "hex").toString("base64");
    case "NUMERIC":
      return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
    case "DATETIME":
      return text.replace(" ", "T");
    case "TIMESTAMP": {
      // Session in UTC: "2024-05-01 08:00:00.123456+00" → microseconds since the epoch.
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?\+00$/.exec(text);
      if (!m) return text;
      return String(BigInt(Date.parse(`${m[1]}T${m[2]}Z`)) * 1000n + BigInt((m[3] ?? "").padEnd(6, "0")));
    }
    default:
      return text;
  }
}

export interface BigQueryEmulatorOptions {
  pgUrl: string;
  projectId: string;
  clientEmail: string;
  publicKey: string;
  datasets: string[];
  /** Largest page served whatever maxResults asks (BigQuery's own byte cap, made small). */
  maxPageRows?: number;
}

/**
 * statistics.query.statementType as BigQuery's reference lists it (SELECT, INSERT, UPDATE, DELETE,
 * MERGE, CREATE_TABLE, DROP_TABLE…, SCRIPT for several statements), from the text with GoogleSQL's
 * strings ('…', "…", '''…''', """…""", with backslash escapes), quoted names and comments removed.
 */
export function statementTypeOf(sql: string): string {
  const code = sql
    .replace(/'''(?:[^\\]|\\[\s\S])*?'''|"""(?:[^\\]|\\[\s\S])*?"""|'(?:[^'\\]|\\[\s\S])*'|"(?:[^"\\]|\\[\s\S])*"|`(?:[^`\\]|\\[\s\S])*`|--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, " ")
    .trim()
    .replace(/;\s*$/, "");
  if (code.includes(";")) return "SCRIPT";
  const words = /^[\s(]*(\w+)(?:\s+(?:OR\s+REPLACE\s+)?(\w+))?/i.exec(code);
  const first = (words?.[1] ?? "").toUpperCase();
  if (first === "WITH" || first === "SELECT") return "SELECT";
  if (["CREATE", "DROP", "ALTER"].includes(first)) return `${first}_${(words?.[2] ?? "").toUpperCase()}`;
  return first;
}

export async function startBigQueryEmulator(options: BigQueryEmulatorOptions) {
  const tokens = new Set<string>();
  const jobs = new Map<string, Job>();
  const state = {
    /** The next N API calls answer 429 with Retry-After: 1. */
    throttle429: 0,
    /** The next N API calls answer 403 rateLimitExceeded (no Retry-After). */
    throttle403: 0,
    throttledAt: [] as number[],
    /** Jobs stay RUNNING until cancelled (timeouts, cancel). */
    holdJobs: false,
    pagesServed: 0,
    cancelled: [] as string[],
    tokenRequests: 0,
    /** When set, what dry runs report as statistics.query.statementType (else statementTypeOf). */
    statementType: undefined as string | undefined,
  };
  const pool = new pg.Pool({ connectionString: options.pgUrl, max: 4 });
  const apiError = (res: ServerResponse, code: number, status: string, reason: string, message: string, headers: Record<string, string> = {}) =>
    json(res, code, { error: { code, message, errors: [{ reason, message, domain: "global" }], status } }, headers);

  function token(req: ReceivedRequest, res: ServerResponse) {
    state.tokenRequests++;
    const form = new URLSearchParams(req.body);
    const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
    const valid =
      form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      !!signature &&
      createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(options.publicKey, Buffer.from(signature, "base64url"));
    const payload = valid ? (JSON.parse(Buffer.from(claims, "base64url").toString()) as { iss?: string; exp?: number; scope?: string }) : {};
    if (!valid || payload.iss !== options.clientEmail || (payload.exp ?? 0) * 1000 < Date.now() || !String(payload.scope).includes("bigquery")) {
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const accessToken = `ya29.${randomBytes(12).toString("hex")}`;
    tokens.add(accessToken);
    json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: "Bearer" });
  }

  /** GoogleSQL → PostgreSQL, enough for the tests' queries. */
  function translate(sql: string, params: { name: string; value: string }[]): { text: string; values: string[] } {
    let text = sql.replace(/(?:`([\w-]+)`|([\w-]+))\.(?:`(\w+)`|(\w+))\.INFORMATION_SCHEMA\.COLUMNS/gi, (_m, p1, p2, d1, d2) => {
      if ((p1 ?? p2) !== options.projectId) throw new Error(`Access Denied: Project ${p1 ?? p2}`);
      const dataset = String(d1 ?? d2);
      return `(SELECT table_name::text AS table_name, column_name::text AS column_name, ${BQ_TYPE_SQL} AS data_type, is_nullable::text AS is_nullable, ordinal_position::int AS ordinal_position FROM information_schema.columns WHERE table_schema = '${dataset.replace(/'/g, "''")}') AS isc`;
    });
    text = text.replace(/`([^`]+)`/g, (_m, name: string) => {
      const parts = name.split(".");
      if (parts.length === 3 && parts[0] === options.projectId) parts.shift();
      return parts.map((p) => `"${p}"`).join(".");
    });
    text = text.replace(/\bAS\s+(INT64|FLOAT64|STRING|BOOL|DATETIME|TIMESTAMP|BIGNUMERIC|NUMERIC|BYTES|DATE|TIME)\b/gi, (_m, t: string) => `AS ${CAST_TYPES[t.toUpperCase()]}`);
    const values: string[] = [];
    text = text.replace(/@(\w+)/g, (_m, name: string) => {
      const p = params.find((x) => x.name === name);
      if (!p) throw new Error(`Query parameter '${name}' not found`);
      values.push(p.value);
      return `$${values.length}`;
    });
    return { text, values };
  }

  async function execute(sql: string, params: { name: string; value: string }[], dataset: string | undefined, dryRun: boolean) {
    const { text, values } = translate(sql, params);
    const client = await pool.connect();
    try {
      await client.query("BEGIN READ ONLY");
      await client.query("SET LOCAL TimeZone = 'UTC'");
      if (dataset) await client.query(`SET LOCAL search_path = "${dataset.replace(/"/g, '""')}"`);
      const result = await client.query({
        text: dryRun ? `SELECT * FROM (${text}\n) AS q LIMIT 0` : text,
        values,
        rowMode: "array",
        types: { getTypeParser: () => (v: string) => v },
      });
      const fields: Field[] = result.fields.map((f) => {
        const [type, repeated] = TYPES[f.dataTypeID] ?? ["STRING"];
        return { name: f.name, type, mode: repeated ? "REPEATED" : "NULLABLE" };
      });
      const rows = (result.rows as (string | null)[][]).map((r) => ({
        f: r.map((cell, i) => {
          const field = fields[i];
          if (field.mode !== "REPEATED" || cell === null) return { v: render(field.type, cell) };
          return { v: (parsePgArray(cell) as (string | null)[]).map((e) => ({ v: render(field.type, e) })) };
        }),
      }));
      return { fields, rows };
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
    }
  }

  async function insertJob(req: ReceivedRequest, res: ServerResponse) {
    const body = parseBody(req) as {
      jobReference?: { jobId?: string; location?: string };
      configuration?: { dryRun?: boolean; query?: { query?: string; useLegacySql?: boolean; defaultDataset?: { datasetId?: string }; queryParameters?: { name: string; parameterValue: { value: string } }[] } };
    };
    const q = body?.configuration?.query;
    if (!q?.query) return apiError(res, 400, "INVALID_ARGUMENT", "invalid", "Required parameter is missing: query");
    if (q.useLegacySql !== false) return apiError(res, 400, "INVALID_ARGUMENT", "invalidQuery", "Legacy SQL is not supported by this emulator.");
    const jobId = body.jobReference?.jobId ?? `job_${randomBytes(6).toString("hex")}`;
    if (!body.configuration?.dryRun && jobs.has(jobId)) return apiError(res, 409, "ALREADY_EXISTS", "duplicate", `Already Exists: Job ${options.projectId}:US.${jobId}`);
    const params = (q.queryParameters ?? []).map((p) => ({ name: p.name, value: p.parameterValue.value }));
    if (body.configuration?.dryRun && (state.statementType ?? statementTypeOf(q.query)) === "SCRIPT") {
      // A script's dry run validates it without a result schema; nothing of it runs here.
      const reference = { projectId: options.projectId, jobId, location: body.jobReference?.location ?? "US" };
      return json(res, 200, { kind: "bigquery#job", jobReference: reference, status: { state: "DONE" }, statistics: { query: { totalBytesProcessed: "0", statementType: "SCRIPT" } } });
    }
    let result: { fields: Field[]; rows: Job["rows"] };
    try {
      result = await execute(q.query, params, q.defaultDataset?.datasetId, body.configuration?.dryRun === true);
    } catch (err) {
      return apiError(res, 400, "INVALID_ARGUMENT", "invalidQuery", `${(err as Error).message} at [1:1]`);
    }
    const reference = { projectId: options.projectId, jobId, location: body.jobReference?.location ?? "US" };
    if (body.configuration?.dryRun) {
      const statementType = state.statementType ?? statementTypeOf(q.query);
      return json(res, 200, { kind: "bigquery#job", jobReference: reference, status: { state: "DONE" }, statistics: { query: { schema: { fields: result.fields }, totalBytesProcessed: "0", statementType } } });
    }
    jobs.set(jobId, { ...result, done: !state.holdJobs, cancelled: false });
    json(res, 200, { kind: "bigquery#job", id: `${options.projectId}:US.${jobId}`, jobReference: reference, status: { state: state.holdJobs ? "RUNNING" : "DONE" } });
  }

  async function results(jobId: string, url: URL, res: ServerResponse) {
    const job = jobs.get(jobId);
    if (!job) return apiError(res, 404, "NOT_FOUND", "notFound", `Not found: Job ${options.projectId}:US.${jobId}`);
    if (job.cancelled) return apiError(res, 400, "INVALID_ARGUMENT", "stopped", "Job execution was cancelled: User requested cancellation");
    const reference = { projectId: options.projectId, jobId, location: "US" };
    if (!job.done) {
      // Long polling: wait up to timeoutMs (short here), then say the job is still running.
      await new Promise((r) => setTimeout(r, Math.min(Number(url.searchParams.get("timeoutMs") ?? 200), 200)));
      return json(res, 200, { kind: "bigquery#getQueryResultsResponse", jobReference: reference, jobComplete: false });
    }
    if (url.searchParams.get("formatOptions.useInt64Timestamp") !== "true" && job.fields.some((f) => f.type === "TIMESTAMP")) {
      return apiError(res, 400, "INVALID_ARGUMENT", "invalid", "This emulator serves timestamps as int64 microseconds only.");
    }
    const start = Number(Buffer.from(url.searchParams.get("pageToken") ?? "", "base64url").toString() || "0");
    const size = Math.min(Number(url.searchParams.get("maxResults") ?? 100_000), options.maxPageRows ?? 100_000);
    const rows = job.rows.slice(start, start + size);
    const next = start + size < job.rows.length ? Buffer.from(String(start + size)).toString("base64url") : undefined;
    state.pagesServed++;
    json(res, 200, {
      kind: "bigquery#getQueryResultsResponse",
      jobReference: reference,
      jobComplete: true,
      schema: { fields: job.fields },
      totalRows: String(job.rows.length),
      ...(rows.length > 0 ? { rows } : {}),
      ...(next ? { pageToken: next } : {}),
    });
  }

  async function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (req.method === "POST" && url.pathname === "/token") return token(req, res);
    if (!tokens.has(String(req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      return apiError(res, 401, "UNAUTHENTICATED", "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
    }
    if (state.throttle429 > 0) {
      state.throttle429--;
      state.throttledAt.push(Date.now());
      return apiError(res, 429, "RESOURCE_EXHAUSTED", "rateLimitExceeded", "Exceeded rate limits: too many api requests per user per method for this user_method.", { "retry-after": "1" });
    }
    if (state.throttle403 > 0) {
      state.throttle403--;
      state.throttledAt.push(Date.now());
      return apiError(res, 403, "PERMISSION_DENIED", "rateLimitExceeded", "Exceeded rate limits: too many concurrent queries for this project_and_region.");
    }
    const m = /^\/bigquery\/v2\/projects\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m || decodeURIComponent(m[1]) !== options.projectId) return apiError(res, 404, "NOT_FOUND", "notFound", `Not found: Project ${m?.[1] ?? ""}`);
    const rest = m[2] ?? "";
    if (req.method === "GET" && rest === "/datasets") {
      return json(res, 200, { kind: "bigquery#datasetList", datasets: options.datasets.map((d) => ({ datasetReference: { projectId: options.projectId, datasetId: d }, location: "US" })) });
    }
    const dataset = /^\/datasets\/([^/]+)$/.exec(rest);
    if (req.method === "GET" && dataset) {
      if (!options.datasets.includes(dataset[1])) return apiError(res, 404, "NOT_FOUND", "notFound", `Not found: Dataset ${options.projectId}:${dataset[1]}`);
      return json(res, 200, { kind: "bigquery#dataset", datasetReference: { projectId: options.projectId, datasetId: dataset[1] }, location: "US" });
    }
    if (req.method === "POST" && rest === "/jobs") return insertJob(req, res);
    const results_ = /^\/queries\/([^/]+)$/.exec(rest);
    if (req.method === "GET" && results_) return results(results_[1], url, res);
    const cancel = /^\/jobs\/([^/]+)\/cancel$/.exec(rest);
    if (req.method === "POST" && cancel) {
      const job = jobs.get(cancel[1]);
      if (!job) return apiError(res, 404, "NOT_FOUND", "notFound", `Not found: Job ${options.projectId}:US.${cancel[1]}`);
      if (!job.done) job.cancelled = true;
      state.cancelled.push(cancel[1]);
      return json(res, 200, { kind: "bigquery#jobCancelResponse", job: { jobReference: { projectId: options.projectId, jobId: cancel[1] }, status: { state: "DONE" } } });
    }
    apiError(res, 404, "NOT_FOUND", "notFound", "Not found: URL");
  }

  const server = await startEmulator((req, res) => void handle(req, res).catch((err: Error) => apiError(res, 500, "INTERNAL", "internalError", err.message)));
  return {
    ...server,
    state,
    jobs,
    expireTokens: () => tokens.clear(),
    close: async () => {
      await server.close();
      await pool.end();
    },
  };
}
