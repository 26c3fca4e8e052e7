// The Athena source against tests/emulators/athena.ts (written from the Athena API reference),
// whose SQL runs on the local PostgreSQL (database `test`, a schema per Athena database), through
// the real @aws-sdk/client-athena with our guarded HTTP handler: check, discovery, previews, a
// 20,000-row read over many pages, incremental cursors, cancel and timeout (StopQueryExecution),
// throttling retried, exact values, and the secret key never in an answer or an error.
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { startAthenaEmulator } from "@/tests/emulators/athena";
import { athenaSource } from "./source";

const PG_URL = process.env.PG_TEST_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const database = uniqueName("athena_db");
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

let athena: Awaited<ReturnType<typeof startAthenaEmulator>>;
let admin: pg.Client;

function config(overrides: Row = {}): Row {
  return {
    access_key: "AKIDEXAMPLE",
    secret_access_key: SECRET,
    region: "us-east-1",
    workgroup: "primary",
    catalog: "AwsDataCatalog",
    schema: database,
    output_location: "s3://example-bucket/athena-results/",
    endpoint: athena.url,
    ...overrides,
  };
}

async function readAll(options: Partial<Parameters<typeof athenaSource.read>[1]> & { query: string }, cfg = config()) {
  const batches: Row[][] = [];
  for await (const batch of athenaSource.read(cfg, { batchSize: 1000, ...options })) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${database}`);
  await admin.query(`CREATE TABLE ${database}.events (id bigint PRIMARY KEY, payload text NOT NULL, updated_at timestamp NOT NULL)`);
  await admin.query(`INSERT INTO ${database}.events SELECT g, 'event ' || g, timestamp '2024-01-01 00:00:00' + g * interval '1 second' FROM generate_series(1, 20000) g`);
  await admin.query(`CREATE TABLE ${database}.kinds (id int PRIMARY KEY, big bigint, amount numeric(38,10), f8 float8, flag boolean, bytes bytea, at_tz timestamptz, at timestamp, day date, doc jsonb, ints int4[], label text)`);
  await admin.query(`INSERT INTO ${database}.kinds VALUES
    (1, 9223372036854775807, 12.5, 'NaN', true, '\\x00ff5c0a', '2024-05-01 10:00:00.123+02', '2024-05-01 10:00:00.123', '2000-02-29', '{"big": 12345678901234567890}', '{1,NULL,3}', ''),
    (2, 42, NULL, 'Infinity', false, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
  athena = await startAthenaEmulator({ pgUrl: PG_URL, accessKeyId: "AKIDEXAMPLE", region: "us-east-1", workgroup: "primary", catalog: "AwsDataCatalog", databases: [database] });
});

afterAll(async () => {
  await athena?.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${database} CASCADE`);
  await admin.end();
});

beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  Object.assign(athena.state, { throttle: 0, holdQueries: false, pagesServed: 0 });
  athena.state.throttledAt.length = 0;
});

describe("check", () => {
  it("reaches the workgroup and the database", async () => {
    expect(await athenaSource.check(config())).toEqual({ ok: true, details: `Connected to Athena in us-east-1: workgroup "primary", catalog "AwsDataCatalog", database "${database}".` });
  });

  it("says the access key was refused, without the secret", async () => {
    const result = await athenaSource.check(config({ access_key: "AKIDWRONG" }));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/AWS refused the access key \(UnrecognizedClientException\)/);
    expect(result.details).not.toContain(SECRET);
  });

  it("names a workgroup that does not exist, and a region that is not one", async () => {
    expect((await athenaSource.check(config({ workgroup: "nope" }))).details).toContain("WorkGroup nope is not found.");
    expect((await athenaSource.check(config({ region: "../x" }))).details).toContain("region must be an AWS region");
  });

  it("refuses loopback unless the operator allows it, unsent", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const before = athena.requests.length;
    const result = await athenaSource.check(config());
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/private|loopback|not allowed|refused/i);
    expect(athena.requests.length).toBe(before);
  });
});

describe("discover", () => {
  it("lists the database's tables with their column types", async () => {
    const catalog = await athenaSource.discover(config());
    const events = catalog.streams.find((s) => s.name === "events");
    expect(events?.url).toBe(`AwsDataCatalog.${database}.events`);
    expect(events?.json_schema.properties).toMatchObject({ id: { $comment: "bigint" }, updated_at: { format: "date-time", $comment: "timestamp" } });
    const all = await athenaSource.discover(config({ schema: undefined }));
    expect(all.streams.map((s) => s.name)).toContain(`${database}.kinds`);
  });
});

describe("query preview and model checks", () => {
  it("previews at most `limit` rows with Athena's types", async () => {
    const result = await athenaSource.query!(config(), "SELECT id, payload FROM events ORDER BY id", 2);
    expect(result.columns).toEqual([{ name: "id", type: "bigint" }, { name: "payload", type: "varchar" }]);
    expect(result.rows).toEqual([{ id: 1, payload: "event 1" }, { id: 2, payload: "event 2" }]);
  });

  it("accepts one SELECT only, and answers a bad one with Athena's reason", async () => {
    expect(() => athenaSource.checkQuery!(`SELECT * FROM "awsdatacatalog"."db"."t" -- note`)).not.toThrow();
    expect(() => athenaSource.checkQuery!("INSERT INTO t SELECT 1")).toThrow(/must be a SELECT/);
    expect(() => athenaSource.checkQuery!("SELECT 1; DROP TABLE t")).toThrow(/single statement/);
    await expect(athenaSource.query!(config(), "SELECT nope FROM events", 5)).rejects.toThrow(/Athena: .*nope/);
  });
});

describe("read", () => {
  it("streams 20,000 rows over pages of 1,000, one page at a time", async () => {
    let count = 0;
    let last = 0;
    let pagesAtFirst = -1;
    for await (const batch of athenaSource.read(config(), { query: "SELECT id, payload FROM events ORDER BY id", batchSize: 700 })) {
      if (pagesAtFirst < 0) pagesAtFirst = athena.state.pagesServed;
      expect(batch.length).toBeLessThanOrEqual(700);
      for (const row of batch) expect(row.id).toBe(++last);
      count += batch.length;
    }
    expect(count).toBe(20000);
    expect(pagesAtFirst).toBe(1);
    // 20,001 rows with the header.
    expect(athena.state.pagesServed).toBe(21);
  });

  it("reads incrementally from the cursor, compared in the column's type", async () => {
    const rows = (await readAll({ query: "SELECT id, updated_at FROM events", cursorField: "updated_at", cursorValue: "2024-01-01T05:33:10.000" })).flat();
    expect(rows.length).toBe(11);
    expect(rows[0]).toEqual({ id: 19990, updated_at: "2024-01-01T05:33:10.000" });
    expect((await readAll({ query: "SELECT id FROM events", cursorField: "id", cursorValue: "19999" })).flat()).toEqual([{ id: 19999 }, { id: 20000 }]);
  });

  it("gives every value as the value model says", async () => {
    const [rows] = await readAll({ query: "SELECT * FROM kinds ORDER BY id" });
    expect(rows[0]).toMatchObject({
      id: 1,
      big: "9223372036854775807",
      amount: "12.5000000000",
      f8: "NaN",
      flag: true,
      bytes: "\\x00ff5c0a",
      at_tz: "2024-05-01T08:00:00.123Z",
      at: "2024-05-01T10:00:00.123",
      day: "2000-02-29",
      ints: "[1, null, 3]",
      label: "",
    });
    expect(String((rows[0].doc as { big: { text: string } }).big.text)).toBe("12345678901234567890");
    expect(rows[1]).toMatchObject({ big: 42, amount: null, f8: "Infinity", flag: false, bytes: null, label: null });
  });

  it("stops the query on Athena when the run is cancelled", async () => {
    athena.state.holdQueries = true;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const before = athena.state.stopped.length;
    await expect(readAll({ query: "SELECT id FROM events", signal: controller.signal })).rejects.toThrow(/cancelled/);
    expect(athena.state.stopped.length).toBe(before + 1);
  });

  it("stops waiting at query_timeout and stops the query", async () => {
    athena.state.holdQueries = true;
    const before = athena.state.stopped.length;
    await expect(readAll({ query: "SELECT id FROM events" }, config({ query_timeout: 1 }))).rejects.toThrow("The query did not finish within 1 s (query_timeout)");
    expect(athena.state.stopped.length).toBe(before + 1);
  });

  it("retries ThrottlingException and goes on", async () => {
    athena.state.throttle = 2;
    expect((await readAll({ query: "SELECT id FROM events WHERE id <= 5" })).flat().length).toBe(5);
    expect(athena.state.throttledAt.length).toBe(2);
  });

  it("keeps the secret key out of errors", async () => {
    const error = await readAll({ query: "SELECT 1 AS x" }, config({ access_key: "AKIDWRONG" })).catch((err: Error) => err);
    expect((error as Error).message).toMatch(/AWS refused the access key/);
    expect((error as Error).message).not.toContain(SECRET);
  });
});
