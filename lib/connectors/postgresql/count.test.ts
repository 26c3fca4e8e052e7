// The PostgreSQL source's bounded row count against the real server: exact below the bound, "more
// than N" at it, unknown (null) when its time box runs out, narrowed by the incremental cursor, and
// right where the planner's guess is off by far (stale statistics, a set-returning function).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { oneStatement } from "./one-statement";
import { postgresqlSource } from "./source";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_estimate_pg");
const config: Row = { host: HOST, port: PORT, database: "test", schema, credentials: { auth_type: "username/password", username: "postgres", password: "" } };

let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.people (id integer PRIMARY KEY, updated integer NOT NULL)`);
  await admin.query(`INSERT INTO ${schema}.people SELECT g, g FROM generate_series(1, 10000) g`);
  await admin.query(`CREATE INDEX ON ${schema}.people (updated)`);
  await admin.query(`ANALYZE ${schema}.people`);
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe("PostgreSQL bounded row count", () => {
  const count = (options: { query: string; cursorField?: string; cursorValue?: string; limit?: number; timeoutMs?: number }) =>
    postgresqlSource.countRows!(config, { batchSize: 1000, limit: 1_000_000, timeoutMs: 5_000, ...options });

  it("is exact below the bound, and only counts the rows after the cursor on an incremental read", async () => {
    expect(await count({ query: `SELECT * FROM ${schema}.people` })).toEqual({ rows: 10_000, more: false });
    expect(await count({ query: `SELECT * FROM ${schema}.people`, limit: 10_000 })).toEqual({ rows: 10_000, more: false });
    expect(await count({ query: `SELECT * FROM ${schema}.people;`, cursorField: "updated", cursorValue: "9001" })).toEqual({ rows: 1_000, more: false });
    expect(await count({ query: `SELECT * FROM ${schema}.people WHERE false -- nothing` })).toEqual({ rows: 0, more: false });
  });

  it('says "more than N" past the bound, having read only N + 1 rows', async () => {
    expect(await count({ query: `SELECT * FROM ${schema}.people`, limit: 9_999 })).toEqual({ rows: 9_999, more: true });
    // A set of a trillion rows, produced row by row (in the select list): the count stops at the bound.
    expect(await count({ query: "SELECT generate_series(1, 1000000000000) AS g", limit: 1_000 })).toEqual({ rows: 1_000, more: true });
  });

  it("is unknown (null) when the time box runs out, and the server stops the query", async () => {
    const started = Date.now();
    expect(await count({ query: `SELECT p.*, pg_sleep(3600) FROM ${schema}.people p`, timeoutMs: 300 })).toBeNull();
    // The statement timeout stopped it on the server; nothing of it is left running.
    expect(Date.now() - started).toBeLessThan(60_000);
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [`%pg_sleep(3600) FROM ${schema}.people%`],
    );
    expect(rows[0].n).toBe(0);
  });

  it("counts what the planner guesses badly: a table whose statistics are stale, a set-returning function", async () => {
    await admin.query(`CREATE TABLE ${schema}.stale (id integer) WITH (autovacuum_enabled = off)`);
    await admin.query(`INSERT INTO ${schema}.stale SELECT g FROM generate_series(1, 50000) g`);
    await admin.query(`ANALYZE ${schema}.stale`);
    await admin.query(`DELETE FROM ${schema}.stale WHERE id > 37`);
    const planned = await admin.query<{ "QUERY PLAN": { Plan: { "Plan Rows": number } }[] }>(`EXPLAIN (FORMAT JSON) SELECT * FROM ${schema}.stale`);
    expect(planned.rows[0]["QUERY PLAN"][0].Plan["Plan Rows"]).toBeGreaterThan(10_000);
    expect(await count({ query: `SELECT * FROM ${schema}.stale` })).toEqual({ rows: 37, more: false });
    expect(await count({ query: "SELECT * FROM unnest(ARRAY[1, 2, 3]) AS x WHERE x > 0" })).toEqual({ rows: 3, more: false });
  });

  it("a query the server cannot run is an error that says why; one that writes is refused before it reaches the server", async () => {
    await expect(count({ query: `SELECT * FROM ${schema}.nowhere` })).rejects.toThrow(/nowhere/);
    await expect(count({ query: `SELECT 1; DROP TABLE ${schema}.people` })).rejects.toThrow(/single statement/);
    await expect(count({ query: `SELECT * FROM ${schema}.people FOR UPDATE` })).rejects.toThrow(/FOR UPDATE/);
  });

  it("runs read-only: a function that writes fails inside the count's transaction", async () => {
    await admin.query(`CREATE TABLE ${schema}.log (at integer)`);
    await admin.query(`CREATE FUNCTION ${schema}.touch() RETURNS integer LANGUAGE sql AS 'INSERT INTO ${schema}.log VALUES (1) RETURNING at'`);
    await expect(count({ query: `SELECT ${schema}.touch()` })).rejects.toThrow(/read-only/);
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.log`)).rows[0].n).toBe(0);
  });
});

// A role whose sessions read backslashes as escapes (standard_conforming_strings off), owning a
// table: the attack text ends the read-only transaction and drops it if any part of it runs.
describe("a model query that hides a second statement behind a backslash", () => {
  const role = uniqueName("scs_off");
  const attack = `SELECT 'x\\' , ' ) AS a; COMMIT; DROP TABLE ${schema}.victim; SELECT * FROM (SELECT 1`;
  const asRole: Row = { ...config, credentials: { auth_type: "username/password", username: role, password: "" } };
  const victimExists = async () =>
    (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1 AND tablename = 'victim'", [schema])).rows[0].n === 1;

  beforeAll(async () => {
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`ALTER ROLE ${role} SET standard_conforming_strings = off`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`CREATE TABLE ${schema}.victim (id int)`);
    await admin.query(`ALTER TABLE ${schema}.victim OWNER TO ${role}`);
  });

  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${schema}.victim`);
    await admin.query(`DROP OWNED BY ${role}`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
  });

  it("is refused by the check, the preview, the read and the count; nothing of it runs", async () => {
    expect(() => postgresqlSource.checkQuery!(attack)).toThrow(/never closed|single statement/);
    await expect(postgresqlSource.query!(asRole, attack, 5)).rejects.toThrow(/never closed|single statement/);
    await expect(postgresqlSource.countRows!(asRole, { batchSize: 10, query: attack, limit: 10, timeoutMs: 1000 })).rejects.toThrow(/never closed|single statement/);
    await expect(
      (async () => {
        for await (const batch of postgresqlSource.read(asRole, { batchSize: 10, query: attack })) void batch;
      })(),
    ).rejects.toThrow(/never closed|single statement/);
    expect(await victimExists()).toBe(true);
  });

  it("would run both statements through the simple protocol; oneStatement sends one and the server refuses the rest", async () => {
    const client = new pg.Client({ host: HOST, port: PORT, user: role, database: "test" });
    await client.connect();
    try {
      expect((await client.query("SHOW standard_conforming_strings")).rows[0].standard_conforming_strings).toBe("off");
      const text = `SELECT count(*) FROM (${attack}\n) AS subquery`;
      await client.query("BEGIN READ ONLY");
      await expect(client.query(oneStatement(text))).rejects.toThrow(/multiple commands/);
      await client.query("ROLLBACK");
      expect(await victimExists()).toBe(true);
    } finally {
      await client.end();
    }
  });
});
