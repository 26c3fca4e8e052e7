// The PostgreSQL source's row estimate against the real server: the planner's guess for the very
// query a read runs, narrowed by the incremental cursor, without running it; a query it cannot plan
// is a described error, never a hang.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
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
