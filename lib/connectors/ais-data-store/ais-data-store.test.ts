// AIS Data Store destination against the real PostgreSQL server on 127.0.0.1:5432 (database `test`):
// the store speaks PostgreSQL's protocol, so a PostgreSQL server is what it is tested against.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row, WriteRecord } from "../types";
import { streamFor, uniqueName } from "@/tests/support/connectors";
import { sqlDestinationContract } from "@/tests/support/sql-destination-contract";
import { getDefinition, maskSecrets, validateConfiguration } from "../registry";
import { aisDataStoreDestination } from "./destination";
import { loadThrough, records } from "@/tests/emulators/common";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_conn_ais");

/** The reference's settings shape: credentials object, port as a string, database, schema. */
function config(overrides: Row = {}): Row {
  return {
    credentials: { auth_type: "username/password", username: "postgres", password: "Ais-Secret-Passw0rd" },
    host: HOST,
    port: String(PORT),
    database: "test",
    schema,
    connect_timeout: 5,
    ...overrides,
  };
}

let admin: pg.Client;
const sql = (text: string, values: unknown[] = []) => admin.query(text, values);
const rec = (key: string, action: WriteRecord["action"], payload: Row): WriteRecord => ({ key, action, payload });

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(`CREATE TABLE ${schema}.people (
    id integer PRIMARY KEY, name text NOT NULL, email varchar(200), score numeric(10,2), big bigint,
    born date, seen_at timestamptz, extra jsonb, created_at timestamp DEFAULT now())`);
});

afterAll(async () => {
  await aisDataStoreDestination.close?.(config());
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe("AIS Data Store settings", () => {
  const definition = getDefinition("AISDataStore", "destination")!;

  it("accepts the reference's settings unchanged and masks the password", () => {
    const settings = config();
    delete settings.connect_timeout;
    expect(validateConfiguration(definition, settings)).toEqual([]);
    expect(maskSecrets(settings, definition)).toMatchObject({ credentials: { password: "*************", username: "postgres" } });
  });

  it("refuses settings without credentials, on save and on write", async () => {
    const { credentials: _omitted, ...bare } = config();
    expect(validateConfiguration(definition, bare)).toEqual([{ path: "credentials", message: expect.stringMatching(/credentials is required/) }]);
    const outcomes = await aisDataStoreDestination.write(bare, [rec("a", "insert", { id: 1, name: "x" })], { stream: streamFor("people"), batch: true });
    expect(outcomes).toEqual([{ key: "a", ok: false, error: expect.stringMatching(/no credentials/), retryable: false }]);
    expect(await aisDataStoreDestination.check(bare)).toEqual({ ok: false, details: expect.stringMatching(/no credentials/) });
  });
});

describe("check and discover", () => {
  it("connects and names the server", async () => {
    const result = await aisDataStoreDestination.check(config());
    expect(result).toMatchObject({ ok: true, details: expect.stringMatching(/^Connected to PostgreSQL \d+/) });
    expect(result.details).not.toContain("Ais-Secret-Passw0rd");
  });

  it("says when the schema does not exist", async () => {
    expect(await aisDataStoreDestination.check(config({ schema: "no_such_schema_ais" }))).toEqual({
      ok: false,
      details: 'Connected, but schema "no_such_schema_ais" does not exist in database "test".',
    });
  });

  it("refuses a private address the operator has not allowed (tests allow only loopback)", async () => {
    const result = await aisDataStoreDestination.check(config({ host: "10.1.2.3" }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local addresses \(10\.1\.2\.3/) });
    const outcomes = await aisDataStoreDestination.write(config({ host: "10.1.2.3" }), [rec("a", "insert", { id: 1, name: "x" })], { stream: streamFor("people"), batch: true });
    expect(outcomes).toEqual([{ key: "a", ok: false, error: expect.stringMatching(/private, loopback or link-local/), retryable: expect.any(Boolean) }]);
  });
});

sqlDestinationContract(() => ({
  destination: aisDataStoreDestination,
  config,
  peopleTable: `${schema}.people`,
  select: async (text) => (await sql(text)).rows,
  batchSize: 5000,
  messages: { notNull: /null value in column "name"/, badInteger: /invalid input syntax for type integer/ },
}));

describe("a sync's batch with exact values", () => {
  it("writes big integers, exact decimals, instants and JSON as sent, and fails only the bad row", async () => {
    const outcomes = await aisDataStoreDestination.write(
      config(),
      [
        rec("a", "upsert", { id: 900, name: "Exact", big: "9007199254740993", score: "12345678.91", seen_at: "2026-01-02T03:04:05.123456Z", extra: { n: 1.5, s: "x" } }),
        rec("b", "upsert", { id: 901, name: "Bad date", born: "2026-13-45" }),
      ],
      { stream: streamFor("people"), batch: true },
    );
    expect(outcomes.find((o) => o.key === "a")).toEqual({ key: "a", ok: true });
    expect(outcomes.find((o) => o.key === "b")).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/date/) });
    const { rows } = await sql(`SELECT big::text, score::text, to_char(seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS seen, extra FROM ${schema}.people WHERE id = 900`);
    expect(rows).toEqual([{ big: "9007199254740993", score: "12345678.91", seen: "2026-01-02 03:04:05.123456", extra: { n: 1.5, s: "x" } }]);
  });
});

describe("a sync through the engine's loader", () => {
  it("loads 2,500 discovered-stream records in batches, failing only the rows the server refuses", async () => {
    const stream = (await aisDataStoreDestination.discover(config())).streams.find((s) => s.name === "people");
    expect(stream).toBeDefined();
    const payloads = Array.from({ length: 2500 }, (_, i) => ({
      id: 10_000 + i,
      // Every 500th row breaks NOT NULL; every 700th has a score too large for numeric(10,2).
      name: i % 500 === 499 ? null : `Synced ${i}`,
      score: i % 700 === 699 ? "123456789012.5" : `${i}.25`,
    }));
    const { outcomes } = await loadThrough(aisDataStoreDestination, config(), stream!, records(payloads.length, (n) => payloads[n - 1]));
    const failed = outcomes.filter((o) => !o.ok);
    expect(failed.map((o) => Number(o.key) - 1).sort((x, y) => x - y)).toEqual([499, 699, 999, 1399, 1499, 1999, 2099, 2499]);
    expect(failed.every((o) => o.retryable === false && /null value in column "name"|numeric field overflow/.test(o.error ?? ""))).toBe(true);
    const { rows } = await sql(`SELECT count(*)::int AS n FROM ${schema}.people WHERE id >= 10000`);
    expect(rows[0].n).toBe(2492);
    const { rows: one } = await sql(`SELECT name, score::text AS score FROM ${schema}.people WHERE id = 12498`);
    expect(one).toEqual([{ name: "Synced 2498", score: "2498.25" }]);
  });
});
