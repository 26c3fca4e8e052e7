// An Amazon Athena API emulator written from the published API reference
// (docs.aws.amazon.com/athena/latest/APIReference: the AWS JSON 1.1 protocol, POST / with
// X-Amz-Target AmazonAthena.<Operation>; StartQueryExecution, GetQueryExecution (QUEUED, RUNNING,
// SUCCEEDED, FAILED, CANCELLED), GetQueryResults paged by NextToken with at most 1,000 rows a page
// and the header as the first row of a SELECT's first page, StopQueryExecution, GetWorkGroup,
// GetDatabase, ListDatabases, ListTableMetadata; errors as {__type, message}; ThrottlingException).
// The reference gives Athena's throttling errors HTTP 400; `throttle429` answers HTTP 429 with
// Retry-After instead, as AWS's front ends may (the SDK retries any 429 as throttling and reads
// Retry-After), so a 429 can be exercised too.
// Requests must carry a SigV4 Authorization header for the expected access key id and region
// (403 UnrecognizedClientException otherwise; the signature itself is not recomputed).
// SQL runs on a real PostgreSQL database (each Athena database a schema) after a small Trino →
// PostgreSQL translation; values come back as Athena prints them. Tests only.
import { randomUUID } from "node:crypto";
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

interface Execution {
  id: string;
  query: string;
  state: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
  reason?: string;
  polls: number;
  columns: { Name: string; Label: string; Type: string; Precision: number; Scale: number; Nullable: string; CaseSensitive: boolean }[];
  rows: (string | null)[][];
  context: { Database?: string; Catalog?: string; WorkGroup?: string; OutputLocation?: string };
}

const ATHENA_TYPES: Record<number, string> = {
  16: "boolean", 17: "varbinary", 20: "bigint", 21: "smallint", 23: "integer", 700: "real", 701: "double", 1700: "decimal",
  25: "varchar", 1043: "varchar", 1042: "char", 1082: "date", 1114: "timestamp", 1184: "timestamp with time zone", 1083: "time", 114: "json", 3802: "json",
  1005: "array", 1007: "array", 1016: "array", 1009: "array", 1015: "array", 1022: "array",
};

const UDT_TYPES: Record<string, string> = {
  int2: "smallint", int4: "int", int8: "bigint", numeric: "decimal", float4: "float", float8: "double", bool: "boolean", date: "date",
  timestamp: "timestamp", timestamptz: "timestamp", bytea: "binary", json: "string", jsonb: "string", _int4: "array<int>", _text: "array<string>",
};

function render(type: string, text: string | null): string | null {
  if (text === null) return null;
  switch (type) {
    case "boolean":
      return text === "t" ? "true" : "false";
    case "varbinary":
      return (text.slice(2).match(/../g) ?? []).join(" ");
    case "timestamp": {
      const [day, time] = text.split(" ");
      const [clock, frac = ""] = time.split(".");
      return `${day} ${clock}.${frac.padEnd(3, "0").slice(0, 3)}`;
    }
    case "timestamp with time zone":
      return `${render("timestamp", text.replace(/\+00$/, ""))} UTC`;
    case "array":
      return `[${(parsePgArray(text) as (string | null)[]).map((e) => e ?? "null").join(", ")}]`;
    default:
      return text;
  }
}

export interface AthenaEmulatorOptions {
  pgUrl: string;
  accessKeyId: string;
  region: string;
  workgroup: string;
  catalog: string;
  databases: string[];
}

export async function startAthenaEmulator(options: AthenaEmulatorOptions) {
  const executions = new Map<string, Execution>();
  const state = {
    /** The next N calls answer ThrottlingException. */
    throttle: 0,
    /** The next N calls answer HTTP 429 ThrottlingException with Retry-After: 1. */
    throttle429: 0,
    throttledAt: [] as number[],
    /** Queries stay RUNNING until stopped. */
    holdQueries: false,
    pagesServed: 0,
    stopped: [] as string[],
    targets: [] as string[],
  };
  const pool = new pg.Pool({ connectionString: options.pgUrl, max: 4 });
  const fail = (res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { __type: type, message, Message: message }, { "x-amzn-errortype": type, "content-type": "application/x-amz-json-1.1", ...headers });
  const ok = (res: ServerResponse, body: unknown) => json(res, 200, body, { "content-type": "application/x-amz-json-1.1", "x-amzn-requestid": randomUUID() });

  /** Trino → PostgreSQL, enough for the tests' queries. */
  function translate(sql: string): string {
    const catalog = options.catalog.toLowerCase();
    return sql
      .replace(/(?:"([^"]+)"|(\w+))\s*\.\s*(?="?\w+"?\s*\.\s*"?\w+"?)/g, (m, q: string | undefined, bare: string | undefined) => ((q ?? bare ?? "").toLowerCase() === catalog ? "" : m))
      .replace(/\bAS\s+double\b(?!\s+precision)/gi, "AS double precision");
  }

  async function run(execution: Execution) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN READ ONLY");
      await client.query("SET LOCAL TimeZone = 'UTC'");
      if (execution.context.Database) await client.query(`SET LOCAL search_path = "${execution.context.Database.replace(/"/g, '""')}"`);
      const result = await client.query({ text: translate(execution.query), rowMode: "array", types: { getTypeParser: () => (v: string) => v } });
      execution.columns = result.fields.map((f) => {
        const type = ATHENA_TYPES[f.dataTypeID] ?? "varchar";
        const numeric = type === "decimal" && f.dataTypeModifier > 0 ? f.dataTypeModifier - 4 : -1;
        return { Name: f.name, Label: f.name, Type: type, Precision: numeric >= 0 ? numeric >> 16 : 0, Scale: numeric >= 0 ? numeric & 0xffff : 0, Nullable: "UNKNOWN", CaseSensitive: type === "varchar" };
      });
      execution.rows = (result.rows as (string | null)[][]).map((r) => r.map((cell, i) => render(execution.columns[i].Type, cell)));
      execution.state = "SUCCEEDED";
    } catch (err) {
      execution.state = "FAILED";
      execution.reason = `COLUMN_NOT_FOUND: line 1:8: ${(err as Error).message}`;
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
    }
  }

  async function tables(database: string) {
    const { rows } = await pool.query<{ table_name: string; column_name: string; udt_name: string }>(
      "SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position",
      [database],
    );
    const byTable = new Map<string, { Name: string; Type: string }[]>();
    for (const r of rows) {
      if (!byTable.has(r.table_name)) byTable.set(r.table_name, []);
      byTable.get(r.table_name)!.push({ Name: r.column_name, Type: UDT_TYPES[r.udt_name] ?? "string" });
    }
    return [...byTable].map(([Name, Columns]) => ({ Name, TableType: "EXTERNAL_TABLE", Columns, PartitionKeys: [] }));
  }

  async function handle(req: ReceivedRequest, res: ServerResponse) {
    const target = String(req.headers["x-amz-target"] ?? "");
    const auth = String(req.headers.authorization ?? "");
    const credential = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/athena\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/.exec(auth);
    if (req.method !== "POST" || !target.startsWith("AmazonAthena.") || !String(req.headers["content-type"]).startsWith("application/x-amz-json-1.1")) {
      return fail(res, 400, "UnknownOperationException", "Unknown operation");
    }
    if (!credential || credential[1] !== options.accessKeyId || !req.headers["x-amz-date"]) {
      return fail(res, 400, "UnrecognizedClientException", "The security token included in the request is invalid.");
    }
    if (credential[2] !== options.region) return fail(res, 400, "InvalidSignatureException", `Credential should be scoped to a valid region, not '${credential[2]}'.`);
    const operation = target.slice("AmazonAthena.".length);
    state.targets.push(operation);
    if (state.throttle > 0) {
      state.throttle--;
      state.throttledAt.push(Date.now());
      return fail(res, 400, "ThrottlingException", "Rate exceeded");
    }
    if (state.throttle429 > 0) {
      state.throttle429--;
      state.throttledAt.push(Date.now());
      return fail(res, 429, "ThrottlingException", "Rate exceeded", { "retry-after": "1" });
    }
    const body = (parseBody(req) ?? {}) as Record<string, unknown>;
    const execution = () => {
      const e = executions.get(String(body.QueryExecutionId));
      if (!e) throw Object.assign(new Error(`QueryExecution ${String(body.QueryExecutionId)} was not found`), { type: "InvalidRequestException" });
      return e;
    };
    switch (operation) {
      case "GetWorkGroup":
        if (body.WorkGroup !== options.workgroup) return fail(res, 400, "InvalidRequestException", `WorkGroup ${String(body.WorkGroup)} is not found.`);
        return ok(res, { WorkGroup: { Name: options.workgroup, State: "ENABLED", Configuration: { EngineVersion: { EffectiveEngineVersion: "Athena engine version 3" } } } });
      case "GetDatabase":
        if (String(body.CatalogName).toLowerCase() !== options.catalog.toLowerCase() || !options.databases.includes(String(body.DatabaseName))) {
          return fail(res, 400, "MetadataException", `Database ${String(body.DatabaseName)} not found.`);
        }
        return ok(res, { Database: { Name: body.DatabaseName } });
      case "ListDatabases":
        return ok(res, { DatabaseList: options.databases.map((Name) => ({ Name })) });
      case "ListTableMetadata": {
        if (!options.databases.includes(String(body.DatabaseName))) return fail(res, 400, "MetadataException", `Database ${String(body.DatabaseName)} not found.`);
        const all = await tables(String(body.DatabaseName));
        const start = Number(body.NextToken ?? 0);
        const size = Math.min(Number(body.MaxResults ?? 50), 50);
        return ok(res, { TableMetadataList: all.slice(start, start + size), ...(start + size < all.length ? { NextToken: String(start + size) } : {}) });
      }
      case "StartQueryExecution": {
        const context = (body.QueryExecutionContext ?? {}) as Execution["context"];
        const output = (body.ResultConfiguration as { OutputLocation?: string } | undefined)?.OutputLocation;
        if (body.WorkGroup !== options.workgroup) return fail(res, 400, "InvalidRequestException", `WorkGroup ${String(body.WorkGroup)} is not found.`);
        if (!output?.startsWith("s3://")) return fail(res, 400, "InvalidRequestException", "No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.");
        if (typeof body.QueryString !== "string" || body.QueryString.length > 262144) return fail(res, 400, "InvalidRequestException", "QueryString is invalid");
        const e: Execution = { id: randomUUID(), query: body.QueryString, state: "QUEUED", polls: 0, columns: [], rows: [], context: { ...context, WorkGroup: options.workgroup, OutputLocation: output } };
        executions.set(e.id, e);
        if (!state.holdQueries) await run(e);
        return ok(res, { QueryExecutionId: e.id });
      }
      case "GetQueryExecution": {
        const e = execution();
        // The first look sees it running, as a real query would be.
        const shown = e.polls++ === 0 && e.state === "SUCCEEDED" ? "RUNNING" : e.state === "QUEUED" ? "RUNNING" : e.state;
        return ok(res, {
          QueryExecution: {
            QueryExecutionId: e.id,
            Query: e.query,
            StatementType: "DML",
            WorkGroup: e.context.WorkGroup,
            QueryExecutionContext: { Database: e.context.Database, Catalog: e.context.Catalog },
            ResultConfiguration: { OutputLocation: `${e.context.OutputLocation}${e.id}.csv` },
            Status: { State: shown, ...(e.reason ? { StateChangeReason: e.reason } : {}), SubmissionDateTime: Date.now() / 1000 },
          },
        });
      }
      case "GetQueryResults": {
        const e = execution();
        if (e.state !== "SUCCEEDED") return fail(res, 400, "InvalidRequestException", `Query has not yet finished. Current state: ${e.state === "QUEUED" ? "RUNNING" : e.state}`);
        const max = Number(body.MaxResults ?? 1000);
        if (max > 1000) return fail(res, 400, "InvalidRequestException", "1 validation error detected: Value at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 1000");
        const header = e.columns.map((c) => c.Name);
        const all = [header, ...e.rows];
        const start = Number(body.NextToken ?? 0);
        const page = all.slice(start, start + max);
        state.pagesServed++;
        return ok(res, {
          UpdateCount: 0,
          ResultSet: {
            Rows: page.map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) })),
            ResultSetMetadata: { ColumnInfo: e.columns.map((c) => ({ CatalogName: "hive", SchemaName: "", TableName: "", ...c })) },
          },
          ...(start + max < all.length ? { NextToken: String(start + max) } : {}),
        });
      }
      case "StopQueryExecution": {
        const e = execution();
        if (e.state === "QUEUED" || e.state === "RUNNING") e.state = "CANCELLED";
        state.stopped.push(e.id);
        return ok(res, {});
      }
      default:
        return fail(res, 400, "UnknownOperationException", `Unknown operation ${operation}`);
    }
  }

  const server = await startEmulator((req, res) =>
    void handle(req, res).catch((err: Error & { type?: string }) => fail(res, err.type ? 400 : 500, err.type ?? "InternalServerException", err.message)),
  );
  return {
    ...server,
    state,
    executions,
    close: async () => {
      await server.close();
      await pool.end();
    },
  };
}
