// The Databricks source against tests/emulators/databricks.ts (the Statement Execution API 2.0 as
// Databricks publishes it), which runs the statements on our real PostgreSQL test database.
import { Client } from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { getDefinition, validateConfiguration } from "../registry";
import { createScratchDatabase } from "@/tests/support/db";
import { startDatabricksEmulator } from "@/tests/emulators/databricks";
import { databricksSource } from "./source";

const TOKEN = "dapi-emulator-secret-0123456789abcdef";
const WAREHOUSE = "a1b2c3d4e5f60718";
const ROWS = 20_000;
const SETUP = `CREATE TABLE events (id integer PRIMARY KEY, email text NOT NULL, amount numeric(12,2), updated_at timestamptz, payload jsonb);
   INSERT INTO events SELECT i, 'user' || i || '@example.com', i * 1.25, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute', jsonb_build_object('n', i)
     FROM generate_series(1, ${ROWS}) AS i;
   CREATE TABLE kinds (id integer, big bigint, dec numeric(38,10), f double precision, b boolean, d date, ts timestamp, tz timestamptz, j jsonb, bin bytea, arr integer[], txt text);
   INSERT INTO kinds VALUES
     (1, 9223372036854775807, 12345678901234567890.0123456789, 'NaN', true, '2024-02-29', '2024-05-01 08:00:00.123456', '2024-05-01 08:00:00.5+02', '{"big": 12345678901234567890, "x": 1.50}', '\\xdeadbeef', '{1,NULL,3}', 'é "quoted" ''x'''),
     (2, -42, 0.5, '-Infinity', false, '0001-01-01', '1969-12-31 23:59:59.999999', '1970-01-01 00:00:00+00', '[1, 2]', '\\x', '{}', ''),
     (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`;

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let dbx: Awaited<ReturnType<typeof startDatabricksEmulator>>;
const config = (overrides: Row = {}): Row => ({
  host: "dbc-a1b2c3d4-e5f6.cloud.databricks.com",
  port: "443",
  access_token: TOKEN,
  http_path: `/sql/1.0/warehouses/${WAREHOUSE}`,
  catalog: "main",
  schema: "public",
  base_url: dbx.url,
  query_timeout: 30,
  ...overrides,
});

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  scratch = await createScratchDatabase("ds_databricks");
  const client = new Client({ connectionString: scratch.url });
  await client.connect();
  await client.query(SETUP);
  await client.end();
  dbx = await startDatabricksEmulator({ databaseUrl: scratch.url, token: TOKEN, warehouseId: WAREHOUSE, catalog: "main", chunkRows: 500 });
});
afterAll(async () => {
  await dbx?.close();
  await scratch?.drop();
});
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  dbx.requests.length = 0;
  dbx.control.throttleNext = 0;
  dbx.control.throttled = 0;
  dbx.control.chunkRequests = 0;
});

async function readAll(options: { query: string; batchSize: number; cursorField?: string; cursorValue?: string | null }, c: Row = config()) {
  const rows: Row[] = [];
  for await (const batch of databricksSource.read(c, options)) rows.push(...batch);
  return rows;
}

describe("Databricks source", () => {
  it("accepts the reference's settings and says in the 422 when the HTTP path is not a SQL warehouse's", () => {
    const definition = getDefinition("Databricks", "source")!;
    expect(definition).toMatchObject({ category: "Data Warehouse", subCategory: "Relational Database" });
    const reference = { host: "dbc-1.cloud.databricks.com", port: "443", access_token: "dapi1", http_path: "/sql/1.0/warehouses/abc123", catalog: "hive_metastore", schema: "default" };
    expect(validateConfiguration(definition, reference)).toEqual([]);
    expect(validateConfiguration(definition, { ...reference, http_path: "sql/protocolv1/o/1234567489/0000-1111111-abcd90" })).toEqual([
      { path: "http_path", message: expect.stringMatching(/\/sql\/1\.0\/warehouses\/<warehouse id>/) },
    ]);
  });

  it("checks the token: ok, then refused with a sentence and never the token", async () => {
    expect(await databricksSource.check(config())).toEqual({ ok: true, details: `Connected to Databricks at dbc-a1b2c3d4-e5f6.cloud.databricks.com: SQL warehouse ${WAREHOUSE}, main.public.` });
    expect(dbx.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    const bad = await databricksSource.check(config({ access_token: "dapi-wrong-token" }));
    expect(bad).toEqual({ ok: false, details: expect.stringMatching(/^Databricks refused the access token \(HTTP 401: Invalid access token\. \(UNAUTHENTICATED\)\)/) });
    expect(bad.details).not.toContain("dapi-wrong-token");
    expect(await databricksSource.check(config({ schema: "nope" }))).toMatchObject({ ok: false, details: expect.stringMatching(/schema "nope" does not exist in catalog "main"/) });
    expect(await databricksSource.check(config({ http_path: "/sql/1.0/warehouses/other" }))).toMatchObject({ ok: false, details: expect.stringMatching(/Warehouse other does not exist/) });
  });

  it("discovers tables from information_schema with Databricks' column types", async () => {
    const catalog = await databricksSource.discover(config());
    const events = catalog.streams.find((s) => s.name === "events")!;
    expect(events.url).toBe("main.public.events");
    expect(events.json_schema).toMatchObject({
      properties: {
        id: { type: "integer", $comment: "INT" },
        amount: { type: ["string", "null"], $comment: "decimal(12,2)" },
        updated_at: { format: "date-time", $comment: "TIMESTAMP" },
        payload: { $comment: "VARIANT" },
      },
    });
  });

  it("previews with a limit, and checks model queries in Spark SQL's lexis", async () => {
    const preview = await databricksSource.query!(config(), "SELECT id, email, amount FROM events ORDER BY `id`", 2);
    expect(preview).toEqual({
      columns: [
        { name: "id", type: "INT" },
        { name: "email", type: "STRING" },
        { name: "amount", type: "DECIMAL(12,2)" },
      ],
      rows: [
        { id: 1, email: "user1@example.com", amount: "1.25" },
        { id: 2, email: "user2@example.com", amount: "2.50" },
      ],
    });
    expect(() => databricksSource.checkQuery!("INSERT INTO t SELECT 1")).toThrow(/must be a SELECT/);
    expect(() => databricksSource.checkQuery!("SELECT reflect('java.lang.System', 'exit', 1)")).toThrow(/must not call reflect/);
    expect(() => databricksSource.checkQuery!('SELECT "a;b" AS `x;y` FROM events')).not.toThrow();
    expect(() => databricksSource.checkQuery!("SELECT 'a\\'; b' AS x /* ; /* ; */ ; */ FROM events")).not.toThrow();
    expect(() => databricksSource.checkQuery!("SELECT 'a' AS x; SELECT 2")).toThrow(/single statement/);
    // r'\' is a whole raw string to Spark: the call after it is code, not string.
    expect(() => databricksSource.checkQuery!("SELECT r'\\' , reflect('java.lang.System', 'exit', 1) AS x, '\\''")).toThrow(/must not call reflect/);
    expect(() => databricksSource.checkQuery!("SELECT secret('scope', 'key') AS s")).toThrow(/must not call secret/);
    expect(() => databricksSource.checkQuery!("SELECT http_request(conn => 'c', method => 'GET', path => '/') AS r")).toThrow(/must not call http_request/);
  });

  it("streams 20k rows chunk by chunk, holding one chunk at a time", async () => {
    let seen = 0;
    let chunksAtFirstBatch = -1;
    for await (const batch of databricksSource.read(config(), { query: "SELECT id, updated_at FROM events ORDER BY id", batchSize: 700 })) {
      if (chunksAtFirstBatch < 0) chunksAtFirstBatch = dbx.control.chunkRequests;
      expect(batch.length).toBeLessThanOrEqual(700);
      seen += batch.length;
    }
    expect(seen).toBe(ROWS);
    expect(chunksAtFirstBatch).toBeLessThanOrEqual(1);
    expect(dbx.control.chunkRequests).toBe(ROWS / 500 - 1);
  });

  it("reads incrementally from the saved cursor with a named parameter", async () => {
    const rows = await readAll({ query: "SELECT id, updated_at FROM events", batchSize: 5000, cursorField: "updated_at", cursorValue: "2024-01-14T21:20:00.000Z" });
    expect(rows.length).toBe(1);
    expect(rows[0]).toEqual({ id: 20_000, updated_at: "2024-01-14T21:20:00.000Z" });
    const body = JSON.parse(dbx.requests.find((r) => r.method === "POST")!.body) as { statement: string; parameters: unknown; warehouse_id: string };
    expect(body.statement).toMatch(/WHERE subquery\.`updated_at` >= :cursor_value ORDER BY subquery\.`updated_at`$/);
    expect(body.parameters).toEqual([{ name: "cursor_value", value: "2024-01-14T21:20:00.000Z", type: "STRING" }]);
    expect(body.warehouse_id).toBe(WAREHOUSE);
  });

  it("gives each Databricks type its value-model value", async () => {
    const rows = await readAll({ query: "SELECT * FROM kinds ORDER BY id", batchSize: 10 });
    expect(rows[0]).toEqual({
      id: 1,
      big: "9223372036854775807",
      dec: "12345678901234567890.0123456789",
      f: "NaN",
      b: true,
      d: "2024-02-29",
      ts: "2024-05-01T08:00:00.123456",
      tz: "2024-05-01T06:00:00.500Z",
      j: { big: expect.objectContaining({ text: "12345678901234567890" }), x: expect.objectContaining({ text: "1.50" }) },
      bin: "\\xdeadbeef",
      arr: [1, null, 3],
      txt: `é "quoted" 'x'`,
    });
    expect(rows[1]).toMatchObject({ big: -42, f: "-Infinity", b: false, d: "0001-01-01", ts: "1969-12-31T23:59:59.999999", tz: "1970-01-01T00:00:00.000Z", j: [1, 2], bin: "\\x", arr: [] });
    expect(Object.values(rows[2]).slice(1).every((v) => v === null)).toBe(true);
  });

  it("honours a 429's Retry-After and goes on", async () => {
    dbx.control.throttleNext = 2;
    expect((await databricksSource.query!(config(), "SELECT id FROM events ORDER BY id", 1)).rows).toEqual([{ id: 1 }]);
    expect(dbx.control.throttled).toBe(2);
  }, 20_000);

  it("cancels the statement in Databricks when the run is cancelled, and at query_timeout", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const reading = (async () => {
      for await (const batch of databricksSource.read(config(), { query: "SELECT pg_sleep(10) AS slept", batchSize: 10, signal: controller.signal })) void batch;
    })();
    await expect(reading).rejects.toThrow(/cancelled/);
    expect(dbx.requests.some((r) => r.method === "POST" && r.url.endsWith("/cancel"))).toBe(true);
    await expect(databricksSource.query!(config({ query_timeout: 1 }), "SELECT pg_sleep(3) AS slept", 1)).rejects.toThrow(
      /did not finish within 1 s \(query_timeout\), so it was cancelled in Databricks/,
    );
    expect([...dbx.statements.values()].filter((s) => s.state === "CANCELED").length).toBe(2);
  }, 30_000);

  it("keeps the token out of errors and goes through the outbound policy", async () => {
    const error = await databricksSource.query!(config(), "SELECT no_such_column FROM events", 1).catch((e: Error) => e);
    expect(String(error)).toMatch(/Databricks could not run the statement: \[PARSE_OR_ANALYSIS_ERROR\]/);
    expect(String(error)).not.toContain(TOKEN);
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    const blocked = await databricksSource.check(config());
    expect(blocked).toMatchObject({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
  });
});
