// The Snowflake source against tests/emulators/snowflake.ts (the SQL API v2 as Snowflake publishes
// it), which runs the statements on our real PostgreSQL test database.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { getDefinition, validateConfiguration } from "../registry";
import { Client } from "pg";
import { createScratchDatabase } from "@/tests/support/db";
import { startSnowflakeEmulator } from "@/tests/emulators/snowflake";
import { snowflakeSource } from "./source";
import { cachedJwtCount, snowflakeAuthHeaders } from "./auth";
import type { SnowflakeConfig } from "./config";
import { TOKEN_CACHE_LIMIT } from "../shared/bounded-cache";

const TOKEN = "snowflake-pat-emulator-secret-0123456789";
const ROWS = 20_000;
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

const SETUP = `CREATE TABLE events (id integer PRIMARY KEY, email text NOT NULL, amount numeric(12,2), updated_at timestamptz, payload jsonb);
   INSERT INTO events SELECT i, 'user' || i || '@example.com', i * 1.25, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute', jsonb_build_object('n', i)
     FROM generate_series(1, ${ROWS}) AS i;
   CREATE TABLE kinds (id integer, big bigint, dec numeric(38,10), f double precision, b boolean, d date, t time, ts timestamp, tz timestamptz, j jsonb, bin bytea, arr integer[], txt text);
   INSERT INTO kinds VALUES
     (1, 9223372036854775807, 12345678901234567890.0123456789, 'NaN', true, '2024-02-29', '13:14:15.123456', '2024-05-01 08:00:00.123456', '2024-05-01 08:00:00.5+02', '{"big": 12345678901234567890, "x": 1.50}', '\\xdeadbeef', '{1,NULL,3}', 'é "quoted" ''x'''),
     (2, -42, 0.5, 'Infinity', false, '0001-01-01', '00:00:00', '1969-12-31 23:59:59.999999', '1970-01-01 00:00:00+00', '[1, 2]', '\\x', '{}', ''),
     (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;

let sf: Awaited<ReturnType<typeof startSnowflakeEmulator>>;
const config = (overrides: Row = {}): Row => ({
  credentials: { auth_type: "username/password", username: "SVC_SYNC", password: TOKEN },
  host: "acme-prod.snowflakecomputing.com",
  role: "READER",
  warehouse: "WH_XS",
  database: "ANALYTICS",
  schema: "public",
  base_url: sf.url,
  query_timeout: 30,
  ...overrides,
});

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  scratch = await createScratchDatabase("ds_snowflake");
  const client = new Client({ connectionString: scratch.url });
  await client.connect();
  await client.query(SETUP);
  await client.end();
  sf = await startSnowflakeEmulator({
    databaseUrl: scratch.url,
    token: TOKEN,
    keyPair: { account: "ACME-PROD", user: "SVC_SYNC", publicKey },
    partitionRows: 500,
    database: "ANALYTICS",
    warehouse: "WH_XS",
    role: "READER",
  });
});
afterAll(async () => {
  await sf?.close();
  await scratch?.drop();
});
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  sf.requests.length = 0;
  sf.control.throttleNext = 0;
  sf.control.throttled = 0;
  sf.control.partitionRequests = 0;
});

async function readAll(options: { query: string; batchSize: number; cursorField?: string; cursorValue?: string | null }, c: Row = config()) {
  const batches: Row[][] = [];
  for await (const batch of snowflakeSource.read(c, options)) batches.push(batch);
  return batches;
}

describe("Snowflake source", () => {
  it("accepts the reference's settings unchanged and says what a key pair needs", () => {
    const definition = getDefinition("Snowflake", "source")!;
    expect(definition).toMatchObject({ category: "Data Warehouse", subCategory: "Relational Database" });
    const reference = {
      credentials: { auth_type: "username/password", username: "SVC", password: "pat" },
      host: "acme.snowflakecomputing.com",
      role: "R",
      warehouse: "W",
      database: "D",
      schema: "S",
    };
    expect(validateConfiguration(definition, reference)).toEqual([]);
    expect(validateConfiguration(definition, { ...reference, credentials: { auth_type: "key_pair", username: "SVC" } })).toEqual([
      expect.objectContaining({ path: "credentials.private_key" }),
    ]);
  });

  it("checks a programmatic access token: ok, then refused with a sentence that says the SQL API takes no password", async () => {
    const ok = await snowflakeSource.check(config());
    expect(ok).toEqual({ ok: true, details: expect.stringMatching(/^Connected to Snowflake 8\.40\.1 at acme-prod\.snowflakecomputing\.com/) });
    expect(sf.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sf.requests[0].headers["x-snowflake-authorization-token-type"]).toBe("PROGRAMMATIC_ACCESS_TOKEN");
    const bad = await snowflakeSource.check(config({ credentials: { auth_type: "username/password", username: "SVC_SYNC", password: "my-plain-password" } }));
    expect(bad.ok).toBe(false);
    expect(bad.details).toMatch(/Snowflake refused the credentials \(HTTP 401: Invalid OAuth access token\. \(code 390303\)\)\..*programmatic access token \(PAT\) of user SVC_SYNC/);
    expect(bad.details).not.toContain("my-plain-password");
  });

  it("signs key-pair JWTs as Snowflake documents them (plain and encrypted keys)", async () => {
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(await snowflakeSource.check(config({ credentials: { auth_type: "key_pair", username: "svc_sync", private_key: pem } }))).toMatchObject({ ok: true });
    expect(sf.requests.at(-1)?.headers["x-snowflake-authorization-token-type"]).toBe("KEYPAIR_JWT");
    const encrypted = privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "open sesame" }).toString();
    const withPassphrase = config({ credentials: { auth_type: "key_pair", username: "SVC_SYNC", private_key: encrypted, private_key_passphrase: "open sesame" } });
    expect(await snowflakeSource.check(withPassphrase)).toMatchObject({ ok: true });
    // The cached JWT is not handed to the same key with a wrong passphrase.
    const wrongPassphrase = config({ credentials: { auth_type: "key_pair", username: "SVC_SYNC", private_key: encrypted, private_key_passphrase: "guess" } });
    expect(await snowflakeSource.check(wrongPassphrase)).toMatchObject({ ok: false, details: expect.stringMatching(/private key could not be read/) });
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const refused = await snowflakeSource.check(config({ credentials: { auth_type: "key_pair", username: "SVC_SYNC", private_key: other } }));
    expect(refused).toMatchObject({ ok: false, details: expect.stringMatching(/public key of this private key is set on user SVC_SYNC/) });
    expect(refused.details).not.toContain("PRIVATE KEY");
  });

  it("keeps a bounded number of signed JWTs", async () => {
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    for (let i = 0; i < TOKEN_CACHE_LIMIT + 5; i++) {
      await snowflakeAuthHeaders({ account: "ACME", auth: { kind: "key_pair", username: `u${i}`, privateKey: pem } } as SnowflakeConfig);
    }
    expect(cachedJwtCount()).toBe(TOKEN_CACHE_LIMIT);
  }, 60_000);

  it("says which object is missing (a warehouse Snowflake does not know)", async () => {
    const bad = await snowflakeSource.check(config({ warehouse: "NOPE" }));
    expect(bad).toEqual({ ok: false, details: "Snowflake could not run the statement: Warehouse 'NOPE' does not exist or not authorized. (code 000606)." });
  });

  it("discovers tables from information_schema with Snowflake's column types", async () => {
    const catalog = await snowflakeSource.discover(config());
    const events = catalog.streams.find((s) => s.name === "events")!;
    expect(events.url).toBe("ANALYTICS.public.events");
    expect(events.json_schema).toMatchObject({
      properties: {
        id: { type: ["integer", "string"], $comment: "NUMBER" },
        email: { type: "string" },
        amount: { type: ["string", "null"] },
        updated_at: { type: ["string", "null"], format: "date-time", $comment: "TIMESTAMP_TZ" },
        payload: { $comment: "VARIANT" },
      },
    });
    expect(catalog.streams.map((s) => s.name)).toContain("kinds");
  });

  it("previews a model query with a limit and Snowflake's types", async () => {
    const preview = await snowflakeSource.query!(config(), "SELECT id, email, amount FROM events ORDER BY id", 3);
    expect(preview.columns).toEqual([
      { name: "id", type: "NUMBER(38,0)" },
      { name: "email", type: "TEXT" },
      { name: "amount", type: "NUMBER(12,2)" },
    ]);
    expect(preview.rows).toEqual([
      { id: 1, email: "user1@example.com", amount: "1.25" },
      { id: 2, email: "user2@example.com", amount: "2.50" },
      { id: 3, email: "user3@example.com", amount: "3.75" },
    ]);
    expect(() => snowflakeSource.checkQuery!("DELETE FROM events")).toThrow(/must be a SELECT/);
    expect(() => snowflakeSource.checkQuery!("SELECT 1; DROP TABLE events")).toThrow(/single statement/);
    expect(() => snowflakeSource.checkQuery!("SELECT SYSTEM$CANCEL_ALL_QUERIES(1)")).toThrow(/must not call system\$cancel_all_queries/);
    // Every SYSTEM$ function but a few that only read (this one changes the account's behaviour).
    expect(() => snowflakeSource.checkQuery!("SELECT SYSTEM$ENABLE_BEHAVIOR_CHANGE_BUNDLE('2024_08')")).toThrow(/must not call system\$enable_behavior_change_bundle/);
    expect(() => snowflakeSource.checkQuery!("SELECT SYSTEM$TYPEOF(1) AS t FROM events")).not.toThrow();
    expect(() => snowflakeSource.checkQuery!("SELECT '$$;' AS a, $$ ; $$ AS b -- ;\n FROM events")).not.toThrow();
    expect(() => snowflakeSource.checkQuery!("SELECT 'it\\'s; fine' AS a // ;\n FROM events")).not.toThrow();
    // The trailing `--'` is dropped as a comment before the check: the string left is never closed.
    expect(() => snowflakeSource.checkQuery!("SELECT 'a\\'; DROP TABLE events; --'")).toThrow(/never closed/);
    expect(() => snowflakeSource.checkQuery!("SELECT 'a\\'; DROP TABLE events; ' AS x")).not.toThrow();
    expect(() => snowflakeSource.checkQuery!("SELECT 'a\\\\'; DROP TABLE events")).toThrow(/single statement/);
  });

  it("streams 20k rows partition by partition, holding one partition at a time", async () => {
    let seen = 0;
    const ids = new Set<unknown>();
    let partitionsAtFirstBatch = -1;
    for await (const batch of snowflakeSource.read(config(), { query: "SELECT id, email, updated_at FROM events ORDER BY id", batchSize: 700 })) {
      if (partitionsAtFirstBatch < 0) partitionsAtFirstBatch = sf.control.partitionRequests;
      expect(batch.length).toBeLessThanOrEqual(700);
      seen += batch.length;
      for (const row of batch) ids.add(row.id);
    }
    expect(seen).toBe(ROWS);
    expect(ids.size).toBe(ROWS);
    // 40 partitions of 500: the first batch needed partition 0 and 1 only.
    expect(partitionsAtFirstBatch).toBeLessThanOrEqual(1);
    expect(sf.control.partitionRequests).toBe(ROWS / 500 - 1);
  });

  it("reads incrementally from the saved cursor, ordered by it", async () => {
    const batches = await readAll({ query: "SELECT id, updated_at FROM events", batchSize: 5000, cursorField: "updated_at", cursorValue: "2024-01-14T21:20:00.000Z" });
    const rows = batches.flat();
    expect(rows.length).toBe(ROWS - 20_000 + 1);
    expect(rows[0]).toEqual({ id: 20_000, updated_at: "2024-01-14T21:20:00.000Z" });
    const body = JSON.parse(sf.requests.find((r) => r.method === "POST")!.body) as { statement: string; bindings: unknown };
    expect(body.statement).toMatch(/WHERE subquery\."updated_at" >= \? ORDER BY subquery\."updated_at"$/);
    expect(body.bindings).toEqual({ 1: { type: "TEXT", value: "2024-01-14T21:20:00.000Z" } });
  });

  it("gives each Snowflake type its value-model value", async () => {
    const rows = (await readAll({ query: "SELECT * FROM kinds ORDER BY id", batchSize: 10 })).flat();
    expect(rows[0]).toEqual({
      id: 1,
      big: "9223372036854775807",
      dec: "12345678901234567890.0123456789",
      f: "NaN",
      b: true,
      d: "2024-02-29",
      t: "13:14:15.123456",
      ts: "2024-05-01T08:00:00.123456",
      tz: "2024-05-01T06:00:00.500Z",
      j: { big: expect.objectContaining({ text: "12345678901234567890" }), x: expect.objectContaining({ text: "1.50" }) },
      bin: "\\xdeadbeef",
      arr: [1, null, 3],
      txt: `é "quoted" 'x'`,
    });
    expect(rows[1]).toMatchObject({ big: -42, dec: "0.5000000000", f: "Infinity", b: false, d: "0001-01-01", t: "00:00:00", ts: "1969-12-31T23:59:59.999999", tz: "1970-01-01T00:00:00.000Z", j: [1, 2], bin: "\\x", arr: [], txt: "" });
    expect(Object.values(rows[2]).slice(1).every((v) => v === null)).toBe(true);
  });

  it("honours a 429's Retry-After and goes on", async () => {
    sf.control.throttleNext = 2;
    const preview = await snowflakeSource.query!(config(), "SELECT id FROM events ORDER BY id", 1);
    expect(preview.rows).toEqual([{ id: 1 }]);
    expect(sf.control.throttled).toBe(2);
  }, 20_000);

  it("cancels the statement in Snowflake when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const reading = (async () => {
      for await (const batch of snowflakeSource.read(config(), { query: "SELECT pg_sleep(10) AS slept", batchSize: 10, signal: controller.signal })) void batch;
    })();
    await expect(reading).rejects.toThrow(/cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(sf.requests.some((r) => r.method === "POST" && r.url.endsWith("/cancel"))).toBe(true);
    expect([...sf.statements.values()].some((s) => s.state === "canceled")).toBe(true);
  }, 30_000);

  it("stops a statement at query_timeout with Snowflake's sentence", async () => {
    await expect(snowflakeSource.query!(config({ query_timeout: 1 }), "SELECT pg_sleep(3) AS slept", 1)).rejects.toThrow(/ran past its timeout in Snowflake: Statement reached its statement or warehouse timeout of 1 second/);
  }, 20_000);

  it("keeps the credential out of errors and goes through the outbound policy", async () => {
    const error = await snowflakeSource.query!(config(), "SELECT no_such_column FROM events", 1).catch((e: Error) => e);
    expect(String(error)).toMatch(/Snowflake could not run the statement: SQL compilation error/);
    expect(String(error)).not.toContain(TOKEN);
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    const blocked = await snowflakeSource.check(config());
    expect(blocked.ok).toBe(false);
    expect(blocked.details).toMatch(/private, loopback or link-local/);
    expect(blocked.details).not.toContain(TOKEN);
  });
});
