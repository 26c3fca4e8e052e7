// The PostgreSQL source's row estimate against the real server: the planner's guess for the very
// query a read runs, narrowed by the incremental cursor, without running it; a query it cannot plan
// is a described error, never a hang.
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

describe("PostgreSQL row estimate", () => {
  const estimate = (options: { query: string; cursorField?: string; cursorValue?: string }) =>
    postgresqlSource.estimateRows!(config, { batchSize: 1000, ...options });

  it("estimates the model's rows from the planner, and only those after the cursor on an incremental read", async () => {
    const all = await estimate({ query: `SELECT * FROM ${schema}.people` });
    expect(all).toBe(10_000);
    const after = await estimate({ query: `SELECT * FROM ${schema}.people`, cursorField: "updated", cursorValue: "9001" });
    expect(after).toBeGreaterThan(500);
    expect(after).toBeLessThan(2_000);
  });

  it("plans without running: a query that would take an hour is estimated at once", async () => {
    const slow = await estimate({ query: `SELECT p.*, pg_sleep(3600) FROM ${schema}.people p` });
    expect(slow).toBe(10_000);
  });

  it("a query the server cannot plan is an error that says why", async () => {
    await expect(estimate({ query: `SELECT * FROM ${schema}.nowhere` })).rejects.toThrow(/nowhere/);
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

  it("is refused by the check, the preview, the read and the estimate; nothing of it runs", async () => {
    expect(() => postgresqlSource.checkQuery!(attack)).toThrow(/never closed|single statement/);
    await expect(postgresqlSource.query!(asRole, attack, 5)).rejects.toThrow(/never closed|single statement/);
    await expect(postgresqlSource.estimateRows!(asRole, { batchSize: 10, query: attack })).rejects.toThrow(/never closed|single statement/);
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
      const text = `EXPLAIN SELECT * FROM (${attack}\n) AS subquery`;
      await client.query("BEGIN READ ONLY");
      await expect(client.query(oneStatement(text))).rejects.toThrow(/multiple commands/);
      await client.query("ROLLBACK");
      expect(await victimExists()).toBe(true);
    } finally {
      await client.end();
    }
  });
});
