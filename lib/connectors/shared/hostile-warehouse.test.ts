// Attacks by a Member who points a warehouse connector at a server of their own (here a local one on
// 127.0.0.1): endless or oversized answers, pagination that never ends, empty chunks that link on,
// polling that never finishes. Each must end, quickly, with a sentence, and never grow memory.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { athenaSource } from "../aws-athena/source";
import { BoundedHttpHandler } from "../aws-athena/bounded-handler";
import { databricksSource } from "../databricks/source";
import { snowflakeSource } from "../snowflake/source";
import { MAX_DISCOVERED_STREAMS } from "./discovery-limits";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server | undefined;
let requests = 0;

async function hostile(handler: Handler): Promise<string> {
  requests = 0;
  server = createServer((req, res) => {
    requests++;
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends 64 KiB chunks for as long as the client reads them. */
function endless(res: ServerResponse, contentType = "application/json") {
  res.writeHead(200, { "content-type": contentType });
  res.write('{"data": [');
  const chunk = "[],".repeat(21_000);
  const more = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once("drain", more);
  };
  more();
}

beforeAll(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const athenaConfig = (endpoint: string): Row => ({
  access_key: "AKIDEXAMPLE",
  secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
  workgroup: "primary",
  catalog: "AwsDataCatalog",
  schema: "db",
  output_location: "s3://example-bucket/out/",
  endpoint,
});

describe("Athena against a hostile endpoint", () => {
  it("stops reading an endless answer past its byte cap: the check fails with a sentence", async () => {
    const url = await hostile((_req, _body, res) => endless(res, "application/x-amz-json-1.1"));
    const started = Date.now();
    const result = await athenaSource.check(athenaConfig(url));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/more than 8 MiB/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("ends an answer trickled byte by byte at the per-call deadline (headers then a slow body)", async () => {
    const url = await hostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 50);
    });
    const handler = new BoundedHttpHandler({}, { maxBytes: 1024 * 1024, deadlineMs: 500 });
    const target = new URL(url);
    const { response } = await handler.handle({ protocol: "http:", hostname: target.hostname, port: Number(target.port), method: "GET", path: "/", headers: {}, query: {} } as never);
    const started = Date.now();
    const read = new Promise((resolve, reject) => {
      (response.body as NodeJS.ReadableStream).on("data", () => undefined).on("end", resolve).on("error", reject);
    });
    await expect(read).rejects.toThrow(/within 0.5 s/);
    expect(Date.now() - started).toBeLessThan(3000);
    handler.destroy();
  });

  it("stops a discovery whose table listing pages forever, at the stream cap", async () => {
    let page = 0;
    const url = await hostile((req, _body, res) => {
      const target = String(req.headers["x-amz-target"]);
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      if (target.endsWith("ListTableMetadata")) {
        page++;
        const tables = Array.from({ length: 50 }, (_, i) => ({ Name: `t${page}_${i}`, Columns: [{ Name: "id", Type: "bigint" }] }));
        res.end(JSON.stringify({ TableMetadataList: tables, NextToken: `next-${page}` }));
      } else res.end("{}");
    });
    const catalog = await athenaSource.discover(athenaConfig(url));
    expect(catalog.streams.length).toBe(MAX_DISCOVERED_STREAMS);
    expect(page).toBeLessThanOrEqual(MAX_DISCOVERED_STREAMS / 50 + 1);
  }, 60_000);

  it("a preview stops at the caller's signal", async () => {
    const url = await hostile((req, _body, res) => {
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      const target = String(req.headers["x-amz-target"]);
      if (target.endsWith("StartQueryExecution")) res.end(JSON.stringify({ QueryExecutionId: "q1" }));
      else res.end(JSON.stringify({ QueryExecution: { Status: { State: "RUNNING" } } }));
    });
    const started = Date.now();
    await expect(athenaSource.query!(athenaConfig(url), "SELECT 1", 10, AbortSignal.timeout(700))).rejects.toThrow(/cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

const databricksConfig = (base: string): Row => ({
  host: "dbc-a1b2c3d4-e5f6.cloud.databricks.com",
  port: "443",
  access_token: "dapi-hostile-0123456789",
  http_path: "/sql/1.0/warehouses/abc123",
  catalog: "main",
  schema: "public",
  base_url: base,
  query_timeout: 86400,
});

describe("Databricks against a hostile endpoint", () => {
  it("refuses empty chunks that link on forever (the check ends with a sentence)", async () => {
    const url = await hostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ statement_id: "s1", status: { state: "SUCCEEDED" }, manifest: { schema: { columns: [] } }, result: { data_array: [], next_chunk_internal_link: "/api/2.0/sql/statements/s1/result/chunks/1" } }));
    });
    const result = await databricksSource.check(databricksConfig(url));
    expect(result).toMatchObject({ ok: false });
    expect(result.details).toMatch(/empty result chunk/);
    expect(requests).toBeLessThan(5);
  });

  it("refuses more chunks than the manifest announced", async () => {
    let n = 0;
    const url = await hostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      n++;
      res.end(JSON.stringify({ statement_id: "s1", status: { state: "SUCCEEDED" }, manifest: { schema: { columns: [{ name: "table_name", type_name: "STRING" }] }, total_chunk_count: 2 }, result: { data_array: [[`t${n}`]], next_chunk_internal_link: `/api/2.0/sql/statements/s1/result/chunks/${n}` }, data_array: [[`t${n}`]], next_chunk_internal_link: `/api/2.0/sql/statements/s1/result/chunks/${n}` }));
    });
    await expect(databricksSource.discover(databricksConfig(url))).rejects.toThrow(/more result chunks than the 2/);
    expect(requests).toBeLessThan(5);
  });

  it("stops polling a statement that never finishes at the caller's signal (query_timeout 86400)", async () => {
    const url = await hostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ statement_id: "s1", status: { state: "RUNNING" } }));
    });
    const started = Date.now();
    const result = await databricksSource.check(databricksConfig(url), AbortSignal.timeout(700));
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stops reading a chunk past the statement API's byte cap", async () => {
    const url = await hostile((_req, _body, res) => endless(res));
    const result = await databricksSource.check(databricksConfig(url));
    expect(result.ok).toBe(false);
  });
});

const snowflakeConfig = (base: string): Row => ({
  credentials: { auth_type: "username/password", username: "SVC_SYNC", password: "pat-hostile-0123456789" },
  host: "acme-prod.snowflakecomputing.com",
  role: "READER",
  warehouse: "WH_XS",
  database: "ANALYTICS",
  schema: "public",
  base_url: base,
  query_timeout: 30,
});

describe("Snowflake against a hostile endpoint", () => {
  it("refuses a result announcing more partitions than rows, before fetching them", async () => {
    const url = await hostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ statementHandle: "h1", resultSetMetaData: { numRows: 1, rowType: [{ name: "V", type: "text" }], partitionInfo: Array.from({ length: 1_000 }, () => ({})) }, data: [] }));
    });
    await expect(snowflakeSource.query!(snowflakeConfig(url), "SELECT 1", 10)).rejects.toThrow(/1000 result partitions for 1 rows/);
    expect(requests).toBe(1);
  });

  it("stops polling at the caller's signal", async () => {
    const url = await hostile((_req, _body, res) => {
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ statementHandle: "h1", code: "333334", message: "running" }));
    });
    const started = Date.now();
    const result = await snowflakeSource.check(snowflakeConfig(url), AbortSignal.timeout(700));
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
