// The Databricks Lakehouse destination against tests/emulators/databricks.ts (the Statement
// Execution API 2.0 as Databricks publishes it), whose statements run on our real PostgreSQL.
import { Client } from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream, WriteRecord } from "../types";
import { getDefinition, maskSecrets, SECRET_MASK } from "../registry";
import { createScratchDatabase } from "@/tests/support/db";
import { startDatabricksEmulator } from "@/tests/emulators/databricks";
import { databricksLakehouseDestination as dest } from "./destination";

const TOKEN = "dapi-lakehouse-secret-0123456789abcdef";
const WAREHOUSE = "f00dfeed12345678";
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let dbx: Awaited<ReturnType<typeof startDatabricksEmulator>>;
let pg: Client;
let customers: Stream;
let events: Stream;

const config = (overrides: Row = {}): Row => ({
  host: "adb-1234567890123456.7.azuredatabricks.net",
  api_token: TOKEN,
  warehouse_id: WAREHOUSE,
  catalog: "main",
  schema: "public",
  base_url: dbx.url,
  query_timeout: 30,
  ...overrides,
});
const upsert = (i: number, extra: Row = {}): WriteRecord => ({ key: String(i), action: "upsert", payload: { id: i, email: `c${i}@example.com`, score: `${i}.25`, ...extra } });
const statements = () => dbx.requests.filter((r) => r.method === "POST" && r.url === "/api/2.0/sql/statements").map((r) => (JSON.parse(r.body) as { statement: string }).statement);
const writes = () => statements().filter((s) => /^(INSERT|MERGE|DELETE)/.test(s));

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  scratch = await createScratchDatabase("ds_lakehouse");
  pg = new Client({ connectionString: scratch.url });
  await pg.connect();
  await pg.query(`CREATE TABLE customers (id integer PRIMARY KEY, email text NOT NULL, score numeric(10,2), active boolean, seen_at timestamptz, profile jsonb);
    CREATE TABLE events (id bigint, name text);`);
  dbx = await startDatabricksEmulator({ databaseUrl: scratch.url, token: TOKEN, warehouseId: WAREHOUSE, catalog: "main" });
  const { streams } = await dest.discover(config());
  customers = streams.find((s) => s.name === "customers")!;
  events = streams.find((s) => s.name === "events")!;
});
afterAll(async () => {
  await pg?.end();
  await dbx?.close();
  await scratch?.drop();
});
beforeEach(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  dbx.requests.length = 0;
  dbx.control.throttleNext = 0;
  dbx.control.throttled = 0;
  await pg.query("TRUNCATE customers, events");
});

describe("Databricks Lakehouse destination", () => {
  it("is the reference's DatabricksLakehouse and masks the token", () => {
    expect(getDefinition("DatabricksLakehouse", "destination")).toMatchObject({ category: "Database", title: "Databricks Data Warehouse" });
    expect(maskSecrets(config(), dest.definition)).toMatchObject({ api_token: SECRET_MASK, warehouse_id: WAREHOUSE });
  });

  it("checks the token and the warehouse, never echoing the token", async () => {
    expect(await dest.check(config())).toEqual({ ok: true, details: `Connected to the SQL warehouse ${WAREHOUSE}; main.public has 2 tables.` });
    const bad = await dest.check(config({ api_token: "dapi-wrong-token-value" }));
    expect(bad.ok).toBe(false);
    expect(bad.details).toMatch(/HTTP 401/);
    expect(bad.details).not.toContain("dapi-wrong-token-value");
    expect((await dest.check(config({ warehouse_id: "nope" }))).details).toMatch(/Warehouse nope does not exist/);
  });

  it("discovers the schema's tables with their types and primary keys", () => {
    expect(customers).toMatchObject({ primary_key: ["id"], batch_size: 100 });
    expect(customers.json_schema.properties).toMatchObject({ id: { type: "integer" }, score: { type: ["string", "null"] }, active: { type: ["boolean", "null"] }, seen_at: { format: "date-time" } });
    expect(events.primary_key).toBeUndefined();
  });

  it("upserts with one MERGE per 100 rows, then updates the rows that changed", async () => {
    const first = await dest.write(config(), Array.from({ length: 250 }, (_, i) => upsert(i + 1)), { stream: customers, batch: true });
    expect(first.every((o) => o.ok)).toBe(true);
    expect(writes()).toHaveLength(3);
    expect(writes()[0]).toMatch(/^MERGE INTO `main`\.`public`\.`customers` AS t USING \(SELECT CAST\(:p0_0 AS /);
    const second = await dest.write(config(), [upsert(1, { score: "99.50", active: true, seen_at: "2024-05-01T08:00:00Z", profile: { tier: "gold" } }), upsert(251)], { stream: customers, batch: true });
    expect(second.every((o) => o.ok)).toBe(true);
    const { rows } = await pg.query("SELECT count(*)::int AS n, (SELECT score::text FROM customers WHERE id = 1) AS s, (SELECT profile->>'tier' FROM customers WHERE id = 1) AS tier FROM customers");
    expect(rows[0]).toEqual({ n: 251, s: "99.50", tier: "gold" });
  });

  it("fails each record Databricks refuses alone, with its reason, and writes its neighbours", async () => {
    const batch = Array.from({ length: 10 }, (_, i) => upsert(i + 1));
    batch[2].payload.score = "not-a-number";
    batch[5].payload.email = null;
    batch[7].payload.nickname = "Jo";
    batch[8].payload.active = { yes: true };
    const outcomes = await dest.write(config(), batch, { stream: customers, batch: true });
    const failed = outcomes.filter((o) => !o.ok);
    expect(failed.map((o) => o.key).sort()).toEqual(["3", "6", "8", "9"]);
    expect(failed.find((o) => o.key === "3")?.error).toMatch(/invalid input syntax|CAST/i);
    expect(failed.find((o) => o.key === "6")?.error).toMatch(/null value|NOT NULL/i);
    expect(failed.find((o) => o.key === "8")?.error).toBe('Unknown column "nickname" for table "customers".');
    expect(failed.find((o) => o.key === "9")?.error).toBe('Column "active" is BOOLEAN and cannot hold the value {"yes":true}.');
    expect(failed.every((o) => o.retryable === false)).toBe(true);
    expect((await pg.query("SELECT id FROM customers ORDER BY id")).rows.map((r) => r.id)).toEqual([1, 2, 4, 5, 7, 10]);
  });

  it("splits a batch where a key repeats, so the later record wins", async () => {
    const outcomes = await dest.write(config(), [upsert(1, { score: "1.00" }), upsert(2), upsert(1, { score: "2.00" })], { stream: customers, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(writes()).toHaveLength(2);
    expect((await pg.query("SELECT score::text FROM customers WHERE id = 1")).rows).toEqual([{ score: "2.00" }]);
  });

  it("inserts into a table without a primary key, where upserts fail with a sentence", async () => {
    const insert = await dest.write(config(), [{ key: "1", action: "insert", payload: { id: 1, name: "signup" } }], { stream: events, batch: true });
    expect(insert[0].ok).toBe(true);
    const [refused] = await dest.write(config(), [{ key: "2", action: "upsert", payload: { id: 2, name: "x" } }], { stream: events, batch: true });
    expect(refused).toMatchObject({ ok: false, error: 'Table "events" has no primary key (a PRIMARY KEY constraint), so it only supports inserts (not upsert).' });
  });

  it("deletes by key and tells which keys are there", async () => {
    await dest.write(config(), [upsert(1), upsert(2), upsert(3)], { stream: customers, batch: true });
    expect(await dest.existingKeys!(config(), customers, [{ id: 2 }, { id: 9 }, { id: 3 }])).toEqual([true, false, true]);
    const deleted = await dest.write(config(), [{ key: "2", action: "delete", payload: { id: 2 } }, { key: "3", action: "delete", payload: { id: 3 } }], { stream: customers, batch: true });
    expect(deleted.every((o) => o.ok)).toBe(true);
    expect((await pg.query("SELECT id FROM customers")).rows).toEqual([{ id: 1 }]);
  });

  it("waits out a 429 by its Retry-After, and reports a persistent one as retryable", async () => {
    dbx.control.throttleNext = 2;
    const outcomes = await dest.write(config(), [upsert(1), upsert(2)], { stream: customers, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(dbx.control.throttled).toBe(2);
    dbx.control.throttleNext = 1000;
    const throttled = await dest.write(config(), [upsert(3)], { stream: customers, batch: true });
    expect(throttled[0]).toMatchObject({ ok: false, status: 429, retryable: true });
    expect(JSON.stringify(throttled)).not.toContain(TOKEN);
  }, 30_000);

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await dest.write(config({ schema: "other" }), [upsert(1)], { stream: customers, batch: true });
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(dbx.requests).toHaveLength(0);
  });
});
