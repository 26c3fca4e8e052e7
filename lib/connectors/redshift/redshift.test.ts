// The Redshift source against the real PostgreSQL server on 127.0.0.1:5432 (database `test`), acting
// as the Redshift endpoint: no Redshift cluster is reachable from here. What runs is only the subset
// of SQL and protocol Redshift shares with PostgreSQL (docs/connectors.md, "Redshift").
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { closedPort, uniqueName } from "@/tests/support/connectors";
import { expectRecordValues, pgColumnsDdl, pgInsert, PG_TYPES, ROWS } from "@/tests/support/type-fidelity";
import { validateConfiguration } from "../registry";
import { columnType } from "./catalog";
import { redshiftSourceDefinition } from "./definition";
import { redshiftSource, serverName } from "./source";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_redshift");
const PASSWORD = "rs-Secret-9f3a";

/** The reference's settings (port as a string), plus ssl_mode disable: the local server has no TLS. */
function config(overrides: Row = {}): Row {
  return {
    host: HOST,
    port: String(PORT),
    database: "test",
    schema,
    credentials: { auth_type: "username/password", username: "postgres", password: PASSWORD },
    ssl_mode: "disable",
    connect_timeout: 5,
    ...overrides,
  };
}

let admin: pg.Client;
const sql = (text: string) => admin.query(text);

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(
    `CREATE TABLE ${schema}.users (id integer PRIMARY KEY, email varchar(40) NOT NULL, score numeric(12,2), updated_at timestamp NOT NULL DEFAULT now())`,
  );
  await sql(
    `INSERT INTO ${schema}.users SELECT g, 'u' || g || '@example.com', g * 1.5, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 2500) g`,
  );
  await sql(`CREATE VIEW ${schema}.recent AS SELECT id, email FROM ${schema}.users WHERE id > 2400`);
  await sql(`CREATE TABLE ${schema}.fidelity (${pgColumnsDdl(PG_TYPES)})`);
  await sql(pgInsert(`${schema}.fidelity`, PG_TYPES));
});

afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

async function collect(iterable: AsyncIterable<Row[]>): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const b of iterable) batches.push(b);
  return batches;
}

describe("settings", () => {
  it("accepts the reference's configuration unchanged, with the port as a string or a number", () => {
    const fixture = JSON.parse(
      readFileSync("tests/fixtures/reference-settings/source-Redshift.json", "utf8"),
    ) as { configuration: Row };
    expect(validateConfiguration(redshiftSourceDefinition, fixture.configuration)).toEqual([]);
    expect(validateConfiguration(redshiftSourceDefinition, { ...fixture.configuration, port: 5439 })).toEqual(
      [],
    );
    expect(
      validateConfiguration(redshiftSourceDefinition, { ...fixture.configuration, port: "54x" }),
    ).not.toEqual([]);
  });

  it("says what to add when the reference's optional credentials are missing", () => {
    const { credentials: _omitted, ...rest } = config();
    expect(validateConfiguration(redshiftSourceDefinition, rest)).toEqual([
      {
        path: "credentials",
        message: expect.stringMatching(/^credentials is required: add .*username.*password/),
      },
    ]);
  });
});

describe("check", () => {
  it("connects and says the server is PostgreSQL, not a Redshift cluster", async () => {
    const result = await redshiftSource.check(config());
    expect(result).toEqual({
      ok: true,
      details: expect.stringMatching(/^Connected to PostgreSQL \d+.* \(not a Redshift cluster/),
    });
    expect(
      serverName(
        "PostgreSQL 8.0.2 on i686-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2, Redshift 1.0.77467",
      ),
    ).toBe("Redshift 1.0.77467");
  });

  it("requires SSL by default, and says how to connect to a server without it", async () => {
    const { ssl_mode: _omitted, ...defaults } = config();
    const result = await redshiftSource.check(defaults);
    expect(result).toEqual({
      ok: false,
      details: expect.stringContaining("does not accept SSL connections; set ssl_mode to disable"),
    });
    expect(result.details).not.toContain(PASSWORD);
  });

  it("explains a refused port, a missing schema and a blocked address, never echoing the password", async () => {
    const refused = await redshiftSource.check(config({ port: await closedPort() }));
    expect(refused).toEqual({
      ok: false,
      details: expect.stringMatching(/connection refused.*Redshift accepts TCP connections/),
    });
    const missing = await redshiftSource.check(config({ schema: "no_such_schema_rs" }));
    expect(missing).toEqual({
      ok: false,
      details: 'Connected, but schema "no_such_schema_rs" does not exist in database "test".',
    });
    const metadata = await redshiftSource.check(config({ host: "169.254.169.254" }));
    expect(metadata.ok).toBe(false);
    expect(metadata.details).toMatch(/metadata/);
    for (const r of [refused, missing, metadata]) expect(r.details).not.toContain(PASSWORD);
    const port = await closedPort();
    await expect(redshiftSource.query!(config({ port }), "SELECT 1", 1)).rejects.toThrow(/Redshift accepts TCP connections/);
    await expect(collect(redshiftSource.read(config({ port }), { query: "SELECT 1", batchSize: 1 }))).rejects.toThrow(/Redshift accepts TCP connections/);
  });

  it("refuses an authentication type other than username/password", async () => {
    const result = await redshiftSource.check(
      config({ credentials: { auth_type: "iam", username: "x", password: PASSWORD } }),
    );
    expect(result).toEqual({
      ok: false,
      details: 'Authentication type "iam" is not supported: use "username/password".',
    });
  });
});

describe("discover", () => {
  it("lists tables and views with their column types and primary keys (information_schema, as SVV_COLUMNS has none here)", async () => {
    const catalog = await redshiftSource.discover(config());
    const users = catalog.streams.find((s) => s.name === "users")!;
    expect(users).toMatchObject({ url: `${schema}.users`, action: "fetch", primary_key: ["id"] });
    const props = users.json_schema.properties as Record<string, { $comment: string; type: unknown }>;
    expect(props.email.$comment).toBe("character varying(40)");
    expect(props.score.$comment).toBe("numeric(12,2)");
    expect(props.id.type).toBe("integer");
    expect(catalog.streams.map((s) => s.name)).toContain("recent");
  });

  it("writes types as Redshift's DDL does", () => {
    expect(
      columnType({
        data_type: "character varying",
        character_maximum_length: 256,
        numeric_precision: null,
        numeric_scale: null,
      }),
    ).toBe("character varying(256)");
    expect(
      columnType({
        data_type: "numeric",
        character_maximum_length: null,
        numeric_precision: 18,
        numeric_scale: 4,
      }),
    ).toBe("numeric(18,4)");
    expect(
      columnType({
        data_type: "super",
        character_maximum_length: null,
        numeric_precision: null,
        numeric_scale: null,
      }),
    ).toBe("super");
  });
});

describe("query preview", () => {
  it("previews a model query with column types, read-only and bounded", async () => {
    const result = await redshiftSource.query!(
      config(),
      `SELECT id, email, score FROM ${schema}.users ORDER BY id`,
      3,
    );
    expect(result.columns).toEqual([
      { name: "id", type: "integer" },
      { name: "email", type: "character varying" },
      { name: "score", type: "numeric" },
    ]);
    expect(result.rows).toEqual([
      { id: 1, email: "u1@example.com", score: "1.50" },
      { id: 2, email: "u2@example.com", score: "3.00" },
      { id: 3, email: "u3@example.com", score: "4.50" },
    ]);
  });

  it("refuses anything but one SELECT, and stops a query at the statement timeout", async () => {
    expect(() => redshiftSource.checkQuery!(`DELETE FROM ${schema}.users`)).toThrow(/must be a SELECT/);
    expect(() => redshiftSource.checkQuery!("SELECT 1; SELECT 2")).toThrow(/single statement/);
    await expect(
      redshiftSource.query!(config({ query_timeout: 1 }), "SELECT pg_sleep(3)", 1),
    ).rejects.toThrow(/statement timeout/);
  });
});

describe("read", () => {
  it("streams the rows in batches of at most batchSize", async () => {
    const batches = await collect(
      redshiftSource.read(config(), { query: `SELECT id, email FROM ${schema}.users`, batchSize: 1000 }),
    );
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500]);
    expect(batches[0][0]).toEqual({ id: expect.any(Number), email: expect.stringMatching(/@example.com$/) });
  });

  it("sets no PostgreSQL-only parameter for its read (Redshift has no synchronize_seqscans)", async () => {
    const batches = await collect(redshiftSource.read(config(), { query: "SELECT current_setting('synchronize_seqscans') AS s", batchSize: 10 }));
    expect(batches).toEqual([[{ s: "on" }]]);
  });

  it("reads incrementally from the saved cursor, in cursor order", async () => {
    const batches = await collect(
      redshiftSource.read(config(), {
        query: `SELECT id, updated_at FROM ${schema}.users`,
        batchSize: 50,
        cursorField: "updated_at",
        cursorValue: "2024-01-02T17:00:00",
      }),
    );
    const rows = batches.flat();
    // Minute 2460 is 2024-01-02 17:00; rows from it on, cursor included (>=).
    expect(rows.length).toBe(2500 - 2460 + 1);
    expect(rows[0]).toEqual({ id: 2460, updated_at: "2024-01-02T17:00:00" });
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => Number(a) - Number(b)));
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const batch of redshiftSource.read(config(), {
          query: `SELECT id FROM ${schema}.users`,
          batchSize: 100,
          signal: controller.signal,
        })) {
          seen.push(batch.length);
          controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(seen).toEqual([100]);
  });

  it("counts the rows of a read, bounded: exact below the bound, more than N at it; an unreachable cluster is a described error", async () => {
    const options = { query: `SELECT * FROM ${schema}.users`, batchSize: 100, timeoutMs: 5_000 };
    const exact = await redshiftSource.countRows!(config(), { ...options, limit: 1_000_000 });
    expect(exact).toMatchObject({ more: false });
    expect(exact!.rows).toBeGreaterThan(0);
    expect(await redshiftSource.countRows!(config(), { ...options, limit: exact!.rows - 1 })).toEqual({ rows: exact!.rows - 1, more: true });
    expect(await redshiftSource.countRows!(config(), { ...options, query: "SELECT 1, pg_sleep(60)", limit: 10, timeoutMs: 200 })).toBeNull();
    await expect(redshiftSource.countRows!(config({ port: await closedPort() }), { query: "SELECT 1", batchSize: 1, limit: 10, timeoutMs: 1_000 })).rejects.toThrow();
  });
});

describe("type fidelity (the PostgreSQL types; a cluster has only the subset Redshift knows)", () => {
  it("reads each value as the value model says", async () => {
    const rows = (
      await collect(
        redshiftSource.read(config(), {
          query: `SELECT * FROM ${schema}.fidelity ORDER BY id`,
          batchSize: 10,
        }),
      )
    ).flat();
    expect(rows).toHaveLength(ROWS);
    for (const row of rows) expectRecordValues(Number(row.id), row);
  });
});

describe("model queries stay one SELECT as Redshift reads them (backslash escapes)", () => {
  it("refuses a second statement hidden behind \\' in the check, preview, read and count", async () => {
    await sql(`CREATE TABLE ${schema}.victim (id int)`);
    const attack = `SELECT 'x\\' , ' ) AS a; COMMIT; DROP TABLE ${schema}.victim; SELECT * FROM (SELECT 1`;
    expect(() => redshiftSource.checkQuery!(attack)).toThrow(/single statement/);
    await expect(redshiftSource.query!(config(), attack, 5)).rejects.toThrow(/single statement|never closed/);
    await expect(collect(redshiftSource.read(config(), { batchSize: 10, query: attack }))).rejects.toThrow(/single statement|never closed/);
    await expect(redshiftSource.countRows!(config(), { batchSize: 10, query: attack, limit: 10, timeoutMs: 1_000 })).rejects.toThrow(/single statement|never closed/);
    const { rows } = await sql(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = '${schema}' AND tablename = 'victim'`);
    expect(rows[0].n).toBe(1);
  });
});
