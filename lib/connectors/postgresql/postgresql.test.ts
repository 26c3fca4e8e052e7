// PostgreSQL source and destination against the real server on 127.0.0.1:5432 (database `test`).
import { mkdtemp, rm } from "node:fs/promises";
import { chmod } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor, uniqueName } from "@/tests/support/connectors";
import { sqlDestinationContract } from "@/tests/support/sql-destination-contract";
import { timestamptzToIso } from "./connection";
import { postgresqlDestination } from "./destination";
import { postgresqlSource } from "./source";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_conn_pg");

function config(overrides: Row = {}): Row {
  return {
    host: HOST,
    port: String(PORT), // the reference console sends ports as strings
    database: "test",
    schema,
    credentials: { auth_type: "username/password", username: "postgres", password: "" },
    connect_timeout: 5,
    ...overrides,
  };
}

let admin: pg.Client;
const sql = (text: string, values: unknown[] = []) => admin.query(text, values);

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(`CREATE TABLE ${schema}.people (
    id integer PRIMARY KEY, name text NOT NULL, email varchar(200), score numeric(10,2), big bigint,
    born date, seen_at timestamptz, tags text[], extra jsonb, created_at timestamp DEFAULT now())`);
  await sql(
    `CREATE TABLE ${schema}.events (id bigint PRIMARY KEY, payload text NOT NULL, updated_at timestamptz NOT NULL)`,
  );
  await sql(`INSERT INTO ${schema}.events
    SELECT g, repeat('x', 200) || g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 100000) g`);
});

afterAll(async () => {
  await postgresqlDestination.close?.(config());
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe("check", () => {
  it("connects and reports the server version", async () => {
    const result = await postgresqlSource.check(config());
    expect(result.ok).toBe(true);
    expect(result.details).toMatch(/Connected to PostgreSQL \d+/);
  });

  it("warns when the credentials are a superuser's or may read the server's files, and not otherwise", async () => {
    const superuser = await postgresqlSource.check(config());
    expect(superuser).toEqual({ ok: true, details: expect.stringContaining('Warning: "postgres" is a superuser, so anyone who may write this workspace\'s models can reach the database server\'s files') });
    const plain = uniqueName("ds_plain");
    const reader = uniqueName("ds_reader");
    await sql(`CREATE ROLE ${plain} LOGIN; CREATE ROLE ${reader} LOGIN IN ROLE pg_read_server_files`);
    try {
      const creds = (user: string) => config({ credentials: { auth_type: "username/password", username: user, password: "" } });
      // The shared test server trusts local connections, so any role logs in without a password.
      const ok = await postgresqlSource.check(creds(plain));
      expect(ok.ok).toBe(true);
      expect(ok.details).not.toContain("Warning");
      expect((await postgresqlSource.check(creds(reader))).details).toContain(`Warning: "${reader}" is a member of pg_read_server_files`);
    } finally {
      await sql(`DROP ROLE ${plain}; DROP ROLE ${reader}`);
    }
  });

  it("explains an unreachable port", async () => {
    const result = await postgresqlSource.check(config({ port: await closedPort() }));
    expect(result).toMatchObject({ ok: false });
    expect(result.details).toMatch(/connection refused/i);
  });

  it("explains an unknown database", async () => {
    const result = await postgresqlSource.check(config({ database: "no_such_db_x" }));
    expect(result).toEqual({
      ok: false,
      details: expect.stringContaining('Database "no_such_db_x" does not exist'),
    });
  });

  it("explains an unknown host", async () => {
    const result = await postgresqlSource.check(config({ host: "no-such-host.invalid" }));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/resolve the host name "no-such-host.invalid"/);
  });

  it("explains a missing schema", async () => {
    const result = await postgresqlSource.check(config({ schema: "no_such_schema_x" }));
    expect(result).toEqual({
      ok: false,
      details: expect.stringContaining('schema "no_such_schema_x" does not exist'),
    });
  });

  it("refuses the cloud metadata address without connecting", async () => {
    const result = await postgresqlSource.check(config({ host: "169.254.169.254" }));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/metadata/);
  });
});

// The shared server trusts every local connection, so a wrong password needs a server of our own
// that demands one: a throwaway embedded PostgreSQL with scram-sha-256.
describe("check with password authentication", () => {
  let embedded: EmbeddedDatabase | undefined;
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ds-pg-auth-"));
    await chmod(dir, 0o755);
    embedded = await startEmbeddedPostgres({ dataDir: dir, port: await closedPort() });
    const owner = new pg.Client({ connectionString: embedded.url });
    await owner.connect();
    await owner.query("CREATE ROLE ds_pw_user LOGIN PASSWORD 'right-password'");
    await owner.end();
  }, 120_000);
  afterAll(async () => {
    await embedded?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("accepts the right password and explains a wrong one without echoing it", async () => {
    const base = { host: "127.0.0.1", port: embedded!.port, database: "datasync", schema: "public" };
    const good = await postgresqlSource.check({
      ...base,
      credentials: { auth_type: "username/password", username: "ds_pw_user", password: "right-password" },
    });
    expect(good.ok).toBe(true);
    const bad = await postgresqlSource.check({
      ...base,
      credentials: { auth_type: "username/password", username: "ds_pw_user", password: "wrong-password-123" },
    });
    expect(bad.ok).toBe(false);
    expect(bad.details).toBe(
      'Password authentication failed for user "ds_pw_user". Check the username and password.',
    );
    expect(bad.details).not.toContain("wrong-password-123");
  });
});

describe("source", () => {
  it("discovers tables with column types as JSON Schema", async () => {
    const catalog = await postgresqlSource.discover(config());
    const people = catalog.streams.find((s) => s.name === "people");
    expect(people?.primary_key).toEqual(["id"]);
    // The reference protocol's members (protocol.rb Stream / Catalog).
    expect(people).toMatchObject({ supported_sync_modes: ["full_refresh", "incremental"], source_defined_cursor: false, source_defined_primary_key: [["id"]] });
    expect(catalog).toMatchObject({ schema_mode: "schema", source_defined_cursor: false });
    expect(people?.json_schema).toMatchObject({
      type: "object",
      properties: {
        id: { type: "integer" },
        name: { type: "string" },
        email: { type: ["string", "null"] },
        big: { type: ["integer", "string", "null"] },
        seen_at: { type: ["string", "null"], format: "date-time" },
        tags: { type: ["array", "null"] },
      },
    });
    expect(catalog.streams.map((s) => s.name).sort()).toEqual(["events", "people"]);
  });

  it("previews a query with a limit, JSON-safe values and column types", async () => {
    await sql(`INSERT INTO ${schema}.people (id, name, big, born, seen_at, score) VALUES
      (900, 'Preview', 9007199254740993, '2020-02-29', '2024-05-01 10:00:00+00', 12.50),
      (899, 'Safe', -9007199254740991, NULL, NULL, NULL)`);
    const result = await postgresqlSource.query!(
      config(),
      `SELECT id, name, big, born, seen_at, score FROM ${schema}.people WHERE id IN (899, 900) ORDER BY id DESC;`,
      5,
    );
    // bigint: a number while exact (|n| ≤ 2^53 − 1), else the digits; numeric keeps its exact text.
    expect(result.rows).toEqual([
      {
        id: 900,
        name: "Preview",
        big: "9007199254740993",
        born: "2020-02-29",
        seen_at: "2024-05-01T10:00:00.000Z",
        score: "12.50",
      },
      { id: 899, name: "Safe", big: -9007199254740991, born: null, seen_at: null, score: null },
    ]);
    expect(result.columns).toContainEqual({ name: "big", type: "bigint" });
    const limited = await postgresqlSource.query!(config(), `SELECT * FROM ${schema}.events`, 3);
    expect(limited.rows).toHaveLength(3);
    await sql(`DELETE FROM ${schema}.people WHERE id IN (899, 900)`);
  });

  it("refuses a preview query that ends in LIMIT or OFFSET", async () => {
    await expect(
      postgresqlSource.query!(config(), `SELECT * FROM ${schema}.events LIMIT 10`, 5),
    ).rejects.toThrow(/must not end with LIMIT or OFFSET/);
    await expect(
      postgresqlSource.query!(config(), `SELECT * FROM ${schema}.events OFFSET 10;`, 5),
    ).rejects.toThrow(/LIMIT or OFFSET/);
  });

  it("runs previews read-only", async () => {
    await sql(`CREATE SEQUENCE ${schema}.counter`);
    await expect(postgresqlSource.query!(config(), `SELECT nextval('${schema}.counter')`, 5)).rejects.toThrow(
      "The query tried to change data; previews only run read-only queries.",
    );
  });

  it("reads 100,000 rows in batches without holding more than one batch", async () => {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let peakHeap = heapBefore;
    let total = 0;
    let batches = 0;
    let maxHeld = 0;
    let lastId = 0;
    for await (const batch of postgresqlSource.read(config(), {
      query: `SELECT id, payload, updated_at FROM ${schema}.events ORDER BY id`,
      batchSize: 1000,
    })) {
      batches += 1;
      total += batch.length;
      maxHeld = Math.max(maxHeld, batch.length);
      lastId = Number(batch[batch.length - 1].id);
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
    expect(total).toBe(100000);
    expect(batches).toBe(100);
    expect(maxHeld).toBeLessThanOrEqual(1000);
    expect(lastId).toBe(100000);
    // All rows at once would be ~40 MB of strings; a loose bound still catches "read everything".
    expect(peakHeap - heapBefore).toBeLessThan(80 * 1024 * 1024);
  });

  it("reads incrementally from a cursor value, ordered by the cursor column", async () => {
    const rows: Row[] = [];
    for await (const batch of postgresqlSource.read(config(), {
      query: `SELECT id, updated_at FROM ${schema}.events;`,
      batchSize: 7,
      cursorField: "updated_at",
      cursorValue: "2024-01-02T03:46:30Z", // id 99990 and later
    })) {
      rows.push(...batch);
    }
    // events.id is bigint: numbers, as they are exact.
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 11 }, (_, i) => 99990 + i));
    expect(rows[0].updated_at).toBe("2024-01-02T03:46:30.000Z");
  });

  it("bounds previews and each read batch by the query timeout", async () => {
    await expect(
      postgresqlSource.query!(config({ query_timeout: 1 }), "SELECT pg_sleep(3)", 1),
    ).rejects.toThrow("The query was cancelled after the 1 s statement timeout.");
    const rows = postgresqlSource
      .read(config({ query_timeout: 1 }), { query: "SELECT pg_sleep(3)", batchSize: 10 })
      [Symbol.asyncIterator]();
    await expect(rows.next()).rejects.toThrow(/did not return the next 10 rows within 1 s/);
  });

  it("stops cleanly when the consumer stops early", async () => {
    for await (const batch of postgresqlSource.read(config(), {
      query: `SELECT * FROM ${schema}.events`,
      batchSize: 10,
    })) {
      expect(batch).toHaveLength(10);
      break;
    }
    // The connection is closed when the loop exits; the server drops its backend a moment later
    // (sooner or later under load), so wait for that rather than sample once.
    const busy = async () => {
      const { rows } = await sql(
        // This file's table only: test files run in parallel on one server, and others read tables named events too.
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'datasync' AND state <> 'idle' AND query LIKE $1",
        [`%${schema}.events%`],
      );
      return rows[0].n;
    };
    await expect.poll(busy, { timeout: 10_000 }).toBe(0);
  });
});

describe("timestamptz text", () => {
  it("converts values to ISO 8601 in UTC as toISOString would, every microsecond kept", () => {
    const viaDate = (v: string) => (pg.types.getTypeParser(1184, "text")(v) as Date).toISOString();
    // At most milliseconds: what Date gives.
    for (const v of ["2024-05-01 10:00:00+00", "2024-05-01 10:00:00.1+00", "2024-05-01 10:00:00+02", "2024-05-01 10:00:00.5-05:30", "2024-01-01 00:30:00+05:30:15"]) {
      expect(timestamptzToIso(v)).toBe(viaDate(v));
    }
    // Microseconds, which Date would truncate, are kept (issue 33).
    expect(timestamptzToIso("2024-05-01 10:00:00.123456+00")).toBe("2024-05-01T10:00:00.123456Z");
    expect(timestamptzToIso("1999-12-31 23:59:59.9999-08")).toBe("2000-01-01T07:59:59.9999Z");
    expect(timestamptzToIso("0001-01-01 00:00:00.000001+00")).toBe("0001-01-01T00:00:00.000001Z");
    // Out of ISO's four-digit years, and infinity: the server's text, which PostgreSQL reads back.
    for (const v of ["infinity", "-infinity", "0044-03-15 00:00:00+00 BC", "12000-01-01 00:00:00+00", "0001-01-01 00:30:00+01"]) {
      expect(timestamptzToIso(v)).toBe(v);
    }
  });
});

sqlDestinationContract(() => ({
  destination: postgresqlDestination,
  config,
  peopleTable: `${schema}.people`,
  select: async (text) => (await sql(text)).rows,
  batchSize: 5000,
  messages: { notNull: /null value in column "name"/, badInteger: /invalid input syntax for type integer/ },
}));

describe("destination (PostgreSQL only)", () => {
  const people = streamFor("people");
  const rec = (key: string, action: WriteRecord["action"], payload: Row): WriteRecord => ({
    key,
    action,
    payload,
  });

  it("writes array columns, and reports a missing table for every row", async () => {
    const outcomes = await postgresqlDestination.write(config(), [rec("t", "upsert", { id: 950, name: "tags", tags: ["a", "b"] })], {
      stream: people,
      batch: true,
    });
    expect(outcomes).toEqual([{ key: "t", ok: true }]);
    expect((await sql(`SELECT tags::text AS tags FROM ${schema}.people WHERE id = 950`)).rows).toEqual([{ tags: "{a,b}" }]);
    const missing = await postgresqlDestination.write(config(), [rec("m", "insert", { id: 1 })], {
      stream: streamFor("nope"),
      batch: true,
    });
    expect(missing).toEqual([
      { key: "m", ok: false, error: `Table "${schema}"."nope" does not exist.`, retryable: false },
    ]);
  });

  it("converts values the same way on the COPY path as on the jsonb path", async () => {
    const tricky = {
      name: 'tab\there, line\nbreak, back\\slash, quote " and \r',
      email: true,
      score: 12.5,
      big: "9007199254740993",
      born: "2024-02-29",
      seen_at: "2024-05-01T10:00:00.123Z",
      extra: { nested: ["a\tb", 1, null], s: "x\\y" },
    };
    // Without an array column the group goes through COPY; with `tags` it keeps jsonb_to_recordset.
    const outcomes = await postgresqlDestination.write(
      config(),
      [rec("c", "upsert", { id: 901, ...tricky }), rec("j", "upsert", { id: 902, ...tricky, tags: null })],
      { stream: people, batch: true },
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const { rows } = await sql(
      `SELECT name, email, score::text, big::text, born::text, seen_at, extra FROM ${schema}.people WHERE id IN (901, 902) ORDER BY id`,
    );
    expect(rows[0]).toEqual(rows[1]);
    expect(rows[0]).toMatchObject({
      name: tricky.name,
      email: "true",
      score: "12.50",
      big: "9007199254740993",
      extra: tricky.extra,
    });
    expect((rows[0].seen_at as Date).toISOString()).toBe(tricky.seen_at);
  });

  it("writes without a staging table when the user may not create temporary tables", async () => {
    const db = uniqueName("ds_notemp");
    const role = uniqueName("ds_notemp_user");
    await sql(`CREATE DATABASE ${db}`);
    await sql(`CREATE ROLE ${role} LOGIN`);
    await sql(`REVOKE TEMPORARY ON DATABASE ${db} FROM PUBLIC`);
    const owner = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: db });
    await owner.connect();
    const settings = config({
      database: db,
      schema: "public",
      credentials: { auth_type: "username/password", username: role, password: "" },
    });
    try {
      await owner.query(`CREATE TABLE public.people (id integer PRIMARY KEY, name text NOT NULL)`);
      await owner.query(`GRANT ALL ON public.people TO ${role}`);
      const outcomes = await postgresqlDestination.write(
        settings,
        [rec("a", "upsert", { id: 1, name: "one" }), rec("b", "upsert", { id: 2, name: null })],
        {
          stream: people,
          batch: true,
        },
      );
      expect(outcomes.find((o) => o.key === "a")).toEqual({ key: "a", ok: true });
      expect(outcomes.find((o) => o.key === "b")).toMatchObject({
        ok: false,
        error: expect.stringMatching(/null value in column "name"/),
      });
      expect((await owner.query("SELECT id, name FROM public.people")).rows).toEqual([
        { id: 1, name: "one" },
      ]);
    } finally {
      await postgresqlDestination.close?.(settings);
      await owner.end();
      await sql(`DROP DATABASE ${db}`);
      await sql(`DROP ROLE ${role}`);
    }
  });
});
