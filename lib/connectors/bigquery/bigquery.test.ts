// The BigQuery source against tests/emulators/bigquery.ts (written from the REST v2 reference),
// whose SQL runs on the local PostgreSQL (database `test`, a schema per dataset): check, discovery,
// previews, a 20,000-row read over many small pages with one page in memory, incremental cursors,
// cancel and timeout (the job cancelled on BigQuery), throttling honoured, exact values, and the
// key never in an answer or an error.
import { generateKeyPairSync } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { startBigQueryEmulator } from "@/tests/emulators/bigquery";
import { bigquerySource } from "./source";

const PG_URL = process.env.PG_TEST_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const dataset = uniqueName("bq_ds");
const EMAIL = "datasync@acme.iam.gserviceaccount.com";

let bq: Awaited<ReturnType<typeof startBigQueryEmulator>>;
let admin: pg.Client;

function config(overrides: Row = {}, key = privateKey): Row {
  return {
    project_id: "acme-analytics",
    dataset_id: dataset,
    credentials_json: {
      type: "service_account",
      project_id: "acme-analytics",
      private_key_id: "k1",
      // As some tools paste it: line breaks as "\n" text.
      private_key: key.replace(/\n/g, "\\n"),
      client_email: EMAIL,
      client_id: "1",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: `${bq.url}/token`,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/x",
      universe_domain: "googleapis.com",
    },
    api_base_url: bq.url,
    ...overrides,
  };
}

async function readAll(options: Partial<Parameters<typeof bigquerySource.read>[1]> & { query: string }, cfg = config()) {
  const batches: Row[][] = [];
  for await (const batch of bigquerySource.read(cfg, { batchSize: 1000, ...options })) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${dataset}`);
  await admin.query(`CREATE TABLE ${dataset}.events (id bigint PRIMARY KEY, payload text NOT NULL, updated_at timestamptz NOT NULL)`);
  await admin.query(`INSERT INTO ${dataset}.events SELECT g, 'event ' || g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 20000) g`);
  await admin.query(`CREATE TABLE ${dataset}.kinds (id int PRIMARY KEY, big bigint, amount numeric(38,10), f8 float8, flag boolean, bytes bytea, at_tz timestamptz, at timestamp, day date, doc jsonb, ints int4[], label text)`);
  await admin.query(`INSERT INTO ${dataset}.kinds VALUES
    (1, 9223372036854775807, 12.5000000000, 'NaN', true, '\\x00ff5c0a', '2024-05-01 10:00:00.123456+02', '2024-05-01 10:00:00.123456', '0001-01-01', '{"big": 12345678901234567890, "dec": 1.50}', '{1,2,3}', 'emoji 😀'),
    (2, 42, -0.0000000001, '-Infinity', false, '\\x', '1970-01-01 00:00:00+00', '9999-12-31 23:59:59', '9999-12-31', '[]', '{}', ''),
    (3, NULL, NULL, 0.1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
  bq = await startBigQueryEmulator({ pgUrl: PG_URL, projectId: "acme-analytics", clientEmail: EMAIL, publicKey: keys.publicKey.export({ type: "spki", format: "pem" }).toString(), datasets: [dataset], maxPageRows: 500 });
});

afterAll(async () => {
  await bq?.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${dataset} CASCADE`);
  await admin.end();
});

beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  Object.assign(bq.state, { throttle429: 0, throttle403: 0, holdJobs: false, pagesServed: 0 });
  bq.state.throttledAt.length = 0;
});

describe("check", () => {
  it("connects with the service account and names the dataset", async () => {
    expect(await bigquerySource.check(config())).toEqual({ ok: true, details: `Connected to BigQuery project "acme-analytics", dataset "${dataset}" (US) as ${EMAIL}.` });
  });

  it("says the key was refused, without the key", async () => {
    const result = await bigquerySource.check(config({}, otherKey));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/refused the service account \(invalid_grant/);
    expect(result.details).not.toContain("PRIVATE KEY");
  });

  it("names a dataset that does not exist", async () => {
    const result = await bigquerySource.check(config({ dataset_id: "missing_ds" }));
    expect(result).toEqual({ ok: false, details: expect.stringContaining("Not found: Dataset acme-analytics:missing_ds") });
  });

  it("refuses loopback unless the operator allows it, unsent", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const before = bq.requests.length;
    const result = await bigquerySource.check(config());
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/private|loopback|not allowed|refused/i);
    expect(bq.requests.length).toBe(before);
  });
});

describe("discover", () => {
  it("lists the dataset's tables with BigQuery's column types", async () => {
    const catalog = await bigquerySource.discover(config());
    const events = catalog.streams.find((s) => s.name === "events");
    expect(events?.url).toBe(`acme-analytics.${dataset}.events`);
    expect(events?.json_schema.properties).toMatchObject({
      id: { type: ["integer", "string"], $comment: "INT64" },
      updated_at: { format: "date-time", $comment: "TIMESTAMP" },
    });
    const kinds = catalog.streams.find((s) => s.name === "kinds");
    expect(kinds?.json_schema.properties).toMatchObject({ ints: { type: ["array", "null"], $comment: "ARRAY<INT64>" }, doc: { $comment: "JSON" }, amount: { $comment: "NUMERIC" } });
  });

  it("lists every dataset when none is configured", async () => {
    const catalog = await bigquerySource.discover(config({ dataset_id: undefined }));
    expect(catalog.streams.map((s) => s.name)).toContain(`${dataset}.events`);
  });
});

describe("query preview and model checks", () => {
  it("previews at most `limit` rows with the result's types", async () => {
    const result = await bigquerySource.query!(config(), "SELECT id, payload FROM events ORDER BY id", 3);
    expect(result.columns).toEqual([{ name: "id", type: "INT64" }, { name: "payload", type: "STRING" }]);
    expect(result.rows).toEqual([{ id: 1, payload: "event 1" }, { id: 2, payload: "event 2" }, { id: 3, payload: "event 3" }]);
  });

  it("accepts one SELECT only", () => {
    expect(() => bigquerySource.checkQuery!("SELECT * FROM `acme-analytics.ds.t` # note")).not.toThrow();
    expect(() => bigquerySource.checkQuery!("DELETE FROM events WHERE true")).toThrow(/must be a SELECT/);
    expect(() => bigquerySource.checkQuery!("SELECT 1; DROP TABLE events")).toThrow(/single statement/);
    expect(() => bigquerySource.checkQuery!("SELECT * FROM events LIMIT 10")).toThrow(/LIMIT/);
  });

  it("refuses a script hidden with GoogleSQL's triple-quoted and raw strings", async () => {
    // '''it's''' is one string to BigQuery: a tokenizer without triple quotes saw `'it'` and hid the `;`.
    const attack = "SELECT '''it's''' ); DROP TABLE events; SELECT * FROM (SELECT 1";
    expect(() => bigquerySource.checkQuery!(attack)).toThrow(/single statement/);
    await expect(bigquerySource.query!(config(), attack, 5)).rejects.toThrow(/single statement/);
    await expect(readAll({ query: attack })).rejects.toThrow(/single statement/);
    expect(() => bigquerySource.checkQuery!('SELECT """a "quoted" ; )""" AS t, r\'\\d+;)\' AS re, b\'\\x00\' AS b, rb"x" AS rb')).not.toThrow();
    expect(() => bigquerySource.checkQuery!("SELECT r'\\' ; DROP TABLE events; SELECT '")).toThrow(/raw string/);
    expect(() => bigquerySource.checkQuery!("SELECT ''' ; DROP TABLE events")).toThrow(/never closed/);
    expect(() => bigquerySource.checkQuery!("SELECT `a\\` ' ` ; DROP TABLE events; SELECT ' '")).toThrow(/single statement/);
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'events'", [dataset]);
    expect(rows[0].n).toBe(1);
  });

  it("runs nothing BigQuery's dry run does not call one SELECT (defence behind the text check)", async () => {
    bq.state.statementType = "SCRIPT";
    try {
      await expect(bigquerySource.query!(config(), "SELECT id FROM events", 1)).rejects.toThrow(/single SELECT statement: BigQuery reads it as SCRIPT/);
      await expect(readAll({ query: "SELECT id FROM events" })).rejects.toThrow(/reads it as SCRIPT/);
    } finally {
      bq.state.statementType = undefined;
    }
    expect((await bigquerySource.query!(config(), "SELECT id FROM events ORDER BY id", 1)).rows).toEqual([{ id: 1 }]);
  });

  it("answers a bad query with BigQuery's reason", async () => {
    await expect(bigquerySource.query!(config(), "SELECT nope FROM events", 5)).rejects.toThrow(/BigQuery.*nope/);
  });
});

describe("read", () => {
  it("streams 20,000 rows over many pages, one page at a time", async () => {
    let count = 0;
    let last = 0;
    let pagesAfterFirst = -1;
    for await (const batch of bigquerySource.read(config(), { query: "SELECT id, payload, updated_at FROM events ORDER BY id", batchSize: 1000 })) {
      if (pagesAfterFirst < 0) pagesAfterFirst = bq.state.pagesServed;
      expect(batch.length).toBeLessThanOrEqual(1000);
      for (const row of batch) expect(row.id).toBe(++last);
      count += batch.length;
    }
    expect(count).toBe(20000);
    // The first batch arrived after one page: the next pages were asked for only as the reader went on.
    expect(pagesAfterFirst).toBe(1);
    expect(bq.state.pagesServed).toBe(40);
  });

  it("reads incrementally from the cursor, in its order", async () => {
    const batches = await readAll({ query: "SELECT id, updated_at FROM events", cursorField: "updated_at", cursorValue: "2024-01-01T05:33:10Z" });
    const rows = batches.flat();
    expect(rows.length).toBe(20000 - 19990 + 1);
    expect(rows[0]).toEqual({ id: 19990, updated_at: "2024-01-01T05:33:10.000Z" });
    const byId = await readAll({ query: "SELECT id FROM events", cursorField: "id", cursorValue: "19999" });
    expect(byId.flat()).toEqual([{ id: 19999 }, { id: 20000 }]);
  });

  it("gives every value as the value model says", async () => {
    const [rows] = await readAll({ query: "SELECT * FROM kinds ORDER BY id" });
    expect(rows[0]).toEqual({
      id: 1,
      big: "9223372036854775807",
      amount: "12.5",
      f8: "NaN",
      flag: true,
      bytes: "\\x00ff5c0a",
      at_tz: "2024-05-01T08:00:00.123456Z",
      at: "2024-05-01T10:00:00.123456",
      day: "0001-01-01",
      doc: expect.objectContaining({ dec: expect.objectContaining({ text: "1.50" }) }),
      ints: [1, 2, 3],
      label: "emoji 😀",
    });
    expect(String((rows[0].doc as { big: { text: string } }).big.text)).toBe("12345678901234567890");
    expect(rows[1]).toMatchObject({ big: 42, amount: "-0.0000000001", f8: "-Infinity", flag: false, bytes: "\\x", at_tz: "1970-01-01T00:00:00.000Z", day: "9999-12-31", doc: [], ints: [] });
    expect(rows[2]).toMatchObject({ big: null, f8: 0.1, at_tz: null, ints: null, label: null });
  });

  it("cancels the job on BigQuery when the run is cancelled", async () => {
    bq.state.holdJobs = true;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(readAll({ query: "SELECT id FROM events", signal: controller.signal })).rejects.toThrow(/cancelled/);
    await new Promise((r) => setTimeout(r, 100));
    expect(bq.state.cancelled.length).toBeGreaterThan(0);
  });

  it("stops waiting at query_timeout and cancels the job", async () => {
    bq.state.holdJobs = true;
    const before = bq.state.cancelled.length;
    await expect(readAll({ query: "SELECT id FROM events" }, config({ query_timeout: 1 }))).rejects.toThrow("The query did not finish within 1 s (query_timeout)");
    expect(bq.state.cancelled.length).toBe(before + 1);
  });

  it("waits out throttling (429 Retry-After, 403 rateLimitExceeded) and goes on", async () => {
    bq.state.throttle429 = 1;
    const started = Date.now();
    const rows = (await readAll({ query: "SELECT id FROM events WHERE id <= 10" })).flat();
    expect(rows.length).toBe(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    bq.state.throttle403 = 2;
    expect((await readAll({ query: "SELECT id FROM events WHERE id <= 3" })).flat().length).toBe(3);
    expect(bq.state.throttledAt.length).toBe(3);
  });

  it("keeps the private key out of errors", async () => {
    const failing = bigquerySource.read(config({}, otherKey), { query: "SELECT 1 AS x", batchSize: 10 });
    const error = await (async () => {
      try {
        for await (const _ of failing) void _;
      } catch (err) {
        return err as Error;
      }
    })();
    expect(error?.message).toMatch(/refused the service account/);
    expect(error?.message).not.toContain("PRIVATE KEY");
  });
});
