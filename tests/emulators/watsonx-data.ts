// An IBM watsonx.data emulator, written from IBM's published references: the IAM token API
// (cloud.ibm.com/docs/iam "Generating an IBM Cloud IAM token by using an API key": POST
// /identity/token, form body grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=…, answer
// {access_token, refresh_token, token_type, expires_in, expiration, scope}; a wrong key answers 400
// {errorCode: "BXNIM0415E", errorMessage: "Provided API key could not be found."}) and the
// watsonx.data v2 API's "Execute a query" (POST /lakehouse/api/v2/queries/execute/{engine_id}, body
// {sql_string, catalog_name, schema_name}, headers Authorization: Bearer and AuthInstanceId; answer
// 201 {response: {result: [row objects]}}, the whole result in one answer; errors as
// {errors: [{code, message}], trace}). Status codes and messages the references do not spell out
// (401 for a bad token, 403 for another instance's CRN, 404 for an unknown engine, 429 with
// Retry-After past a rate-limit window or when state.throttleNext asks) are ours. The SQL runs on the real PostgreSQL server, in the schema named by
// schema_name, with a typeof() like Presto's; values are written as Presto's JSON writes them
// (BIGINT as a number token, DECIMAL as a string, timestamps as "YYYY-MM-DD HH:MM:SS.fff").
// Used by tests only.
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import pg from "pg";
// Only the HTTP helpers (not ./common, which loads the engine): the e2e spec runs this emulator too.
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

export interface WatsonxEmulatorOptions {
  apiKey: string;
  engineId: string;
  instanceCrn: string;
  /** The PostgreSQL server that runs the SQL; its database is the one catalog. */
  pg: { host: string; port: number; user: string; password?: string; database: string };
  tokenLifetimeSeconds?: number;
  /** Query requests allowed per window (per token); past it, 429 with Retry-After. */
  rateLimit?: { max: number; windowMs: number };
}

const API_PREFIX = "/lakehouse/api/v2/queries/execute/";
const asText = (value: string) => value;
const rawText = { getTypeParser: () => asText } as unknown as pg.CustomTypesConfig;

/** A value as Presto's JSON writes it; `raw` is JSON text put into the answer as it is (BIGINT digits). */
type Cell = { raw: string } | unknown;

/** A fixed window of `max` query requests per `windowMs`, per token. */
class Window {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(
    public max: number,
    public windowMs: number,
  ) {}
  hit(key: string): boolean {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) this.windows.set(key, (w = { start: now, count: 0 }));
    return ++w.count <= this.max;
  }
  reset(): void {
    this.windows.clear();
  }
}

function bearerToken(req: ReceivedRequest): string | undefined {
  const header = req.headers.authorization;
  return typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : undefined;
}

function parseBody(req: ReceivedRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

function prestoTimestamp(text: string): string {
  // PostgreSQL `2024-01-01 00:01:00[.123456][+00]` → Presto's millisecond form.
  const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d+))?/.exec(text);
  return m ? `${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}` : text;
}

function cell(oid: number, text: string | null): Cell {
  if (text === null) return null;
  switch (oid) {
    case 16:
      return text === "t";
    case 20:
      return { raw: text };
    case 21:
    case 23:
      return Number(text);
    case 700:
    case 701: {
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
    case 1114:
      return prestoTimestamp(text);
    case 1184:
      return `${prestoTimestamp(text)} UTC`;
    default:
      // numeric (a string, as Presto writes DECIMAL), dates, text, json as its text, arrays as their text.
      return text;
  }
}

function rowJson(cells: [string, Cell][]): string {
  const parts = cells.map(([name, value]) => {
    const text =
      value !== null && typeof value === "object" && "raw" in (value as object)
        ? (value as { raw: string }).raw
        : JSON.stringify(value);
    return `${JSON.stringify(name)}:${text}`;
  });
  return `{${parts.join(",")}}`;
}

export async function startWatsonxDataEmulator(options: WatsonxEmulatorOptions) {
  const tokens = new Map<string, number>();
  const limiter = options.rateLimit
    ? new Window(options.rateLimit.max, options.rateLimit.windowMs)
    : undefined;
  const state = {
    tokensIssued: 0,
    queries: [] as string[],
    delayMs: 0,
    retryAfterSeconds: 1,
    /** The next N query requests answer 429 with Retry-After, whatever the rate limit says. */
    throttleNext: 0,
    throttled: 0,
  };
  // Presto's typeof() for the SQL run on PostgreSQL, in a schema of this emulator's own.
  const helpers = `wxd_presto_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ ...options.pg });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${helpers}`);
  await admin.query(`CREATE FUNCTION ${helpers}.typeof(anyelement) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE t WHEN 'text' THEN 'varchar' WHEN 'double precision' THEN 'double' WHEN 'timestamp without time zone' THEN 'timestamp'
                  WHEN 'jsonb' THEN 'json' ELSE regexp_replace(regexp_replace(t, '^numeric', 'decimal'), '^character varying', 'varchar') END
      FROM (SELECT format_type(pg_typeof($1), NULL) AS t) AS x $$`);

  const fail = (
    res: ServerResponse,
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ) => json(res, status, { errors: [{ code, message }], trace: randomBytes(8).toString("hex") }, headers);

  function token(req: ReceivedRequest, res: ServerResponse) {
    if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      return json(res, 400, {
        errorCode: "BXNIM0109E",
        errorMessage: "Property missing or empty. Property: grant_type",
      });
    }
    const form = new URLSearchParams(req.body);
    if (form.get("grant_type") !== "urn:ibm:params:oauth:grant-type:apikey") {
      return json(res, 400, {
        errorCode: "BXNIM0109E",
        errorMessage: "Property missing or empty. Property: grant_type",
      });
    }
    if (form.get("apikey") !== options.apiKey) {
      return json(res, 400, {
        errorCode: "BXNIM0415E",
        errorMessage: "Provided API key could not be found.",
        context: { requestId: randomBytes(6).toString("hex") },
      });
    }
    const lifetime = options.tokenLifetimeSeconds ?? 3600;
    const accessToken = `eyJ.${randomBytes(16).toString("hex")}`;
    const now = Math.floor(Date.now() / 1000);
    tokens.set(accessToken, (now + lifetime) * 1000);
    state.tokensIssued++;
    json(res, 200, {
      access_token: accessToken,
      refresh_token: "not_supported",
      token_type: "Bearer",
      expires_in: lifetime,
      expiration: now + lifetime,
      scope: "ibm openid",
    });
  }

  async function execute(req: ReceivedRequest, res: ServerResponse) {
    const bearer = bearerToken(req);
    const expires = bearer ? tokens.get(bearer) : undefined;
    if (!bearer || expires === undefined || expires <= Date.now())
      return fail(res, 401, "unauthorized", "The token is missing, invalid or expired.");
    if (req.headers.authinstanceid !== options.instanceCrn)
      return fail(res, 403, "forbidden", "The AuthInstanceId does not name an instance this token may use.");
    const engine = decodeURIComponent(req.url.slice(API_PREFIX.length).split("?")[0]);
    if (engine !== options.engineId) return fail(res, 404, "not_found", `Engine ${engine} was not found.`);
    if (state.throttleNext > 0) {
      state.throttleNext--;
      state.throttled++;
      return fail(res, 429, "too_many_requests", "Rate limit exceeded.", {
        "retry-after": String(state.retryAfterSeconds),
      });
    }
    if (limiter && !limiter.hit(bearer)) {
      return fail(res, 429, "too_many_requests", "Rate limit exceeded.", {
        "retry-after": String(state.retryAfterSeconds),
      });
    }
    const body = parseBody(req) as
      { sql_string?: unknown; catalog_name?: unknown; schema_name?: unknown } | undefined;
    if (!body || typeof body.sql_string !== "string" || body.sql_string.trim() === "")
      return fail(res, 400, "bad_request", "sql_string is required.");
    if (body.catalog_name !== undefined && body.catalog_name !== options.pg.database) {
      return fail(res, 400, "query_failed", `Catalog '${String(body.catalog_name)}' does not exist`);
    }
    state.queries.push(body.sql_string);
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    const client = new pg.Client({ ...options.pg, types: rawText });
    await client.connect();
    try {
      const schema = typeof body.schema_name === "string" ? body.schema_name : "public";
      await client.query("SET TIME ZONE 'UTC'");
      await client.query("SELECT set_config('search_path', $1, false)", [
        `"${schema.replace(/"/g, '""')}", ${helpers}`,
      ]);
      const result = await client.query({ text: body.sql_string, rowMode: "array" });
      const rows = (result.rows as (string | null)[][]).map((r) =>
        rowJson(result.fields.map((f, i) => [f.name, cell(f.dataTypeID, r[i])])),
      );
      res.writeHead(201, { "content-type": "application/json" });
      res.end(`{"response":{"result":[${rows.join(",")}]}}`);
    } catch (err) {
      fail(res, 400, "query_failed", (err as Error).message);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  const server = await startHttpServer((req, res) => {
    if (req.method === "POST" && req.url === "/identity/token") return token(req, res);
    if (req.method === "POST" && req.url.startsWith(API_PREFIX)) {
      void execute(req, res).catch((err: unknown) =>
        fail(res, 500, "internal_error", (err as Error).message),
      );
      return;
    }
    fail(res, 404, "not_found", `No route for ${req.method} ${req.url}.`);
  });

  return {
    ...server,
    iamUrl: `${server.url}/identity/token`,
    apiUrl: `${server.url}/lakehouse/api/v2`,
    state,
    /** Every token issued so far stops working (as if revoked). */
    revokeTokens: () => tokens.clear(),
    limiter,
    async close() {
      await server.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${helpers} CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    },
  };
}
