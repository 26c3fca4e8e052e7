// The type-fidelity suite (tests/support/type-fidelity.ts), Snowflake and Databricks to PostgreSQL
// through the engine: awkward values of the types both warehouses have, served by their emulators
// (tests/emulators: the vendors' wire formats over our real PostgreSQL), synced into PostgreSQL
// columns of the matching types; per column, PostgreSQL's text of what arrived is the value that
// left, or its documented conversion (docs/connectors.md, "Values"). A re-run sends nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { startDatabricksEmulator } from "@/tests/emulators/databricks";
import { startSnowflakeEmulator } from "@/tests/emulators/snowflake";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

/** Source column (PostgreSQL behind the emulators) → destination column, an awkward value, and PostgreSQL's text of what arrived. */
const AWKWARD: { name: string; pg: string; value: string; arrives: string }[] = [
  { name: "big", pg: "bigint", value: "-9223372036854775808", arrives: "-9223372036854775808" },
  { name: "amount", pg: "numeric(38,10)", value: "9999999999999999999999999999.9999999999", arrives: "9999999999999999999999999999.9999999999" },
  { name: "f8", pg: "double precision", value: "'NaN'", arrives: "NaN" },
  { name: "down", pg: "double precision", value: "'-Infinity'", arrives: "-Infinity" },
  { name: "ratio", pg: "double precision", value: "0.1", arrives: "0.1" },
  { name: "flag", pg: "boolean", value: "true", arrives: "true" },
  { name: "label", pg: "text", value: "'emoji \u{1F600} quote'' back\\ tab'", arrives: "emoji \u{1F600} quote' back\\ tab" },
  { name: "day", pg: "date", value: "DATE '0001-01-01'", arrives: "0001-01-01" },
  { name: "last", pg: "date", value: "DATE '9999-12-31'", arrives: "9999-12-31" },
  { name: "at", pg: "timestamp", value: "TIMESTAMP '2024-05-01 10:00:00.123456'", arrives: "2024-05-01 10:00:00.123456" },
  { name: "at_tz", pg: "timestamptz", value: "TIMESTAMPTZ '2024-05-01 10:00:00.123456+02'", arrives: "2024-05-01 08:00:00.123456+00" },
  { name: "doc", pg: "jsonb", value: `'{"big": 12345678901234567890, "dec": 1.50}'`, arrives: '{"big": 12345678901234567890, "dec": 1.50}' },
  { name: "ints", pg: "integer[]", value: "'{1,NULL,-2147483648}'", arrives: "{1,NULL,-2147483648}" },
  { name: "bytes", pg: "bytea", value: "'\\x005cff7831'", arrives: "\\x005cff7831" },
];

describe("warehouse sources to PostgreSQL, awkward types", () => {
  let db: { url: string; drop(): Promise<void> };
  let snowflake: Awaited<ReturnType<typeof startSnowflakeEmulator>>;
  let databricks: Awaited<ReturnType<typeof startDatabricksEmulator>>;

  beforeAll(async () => {
    db = await createScratchDatabase("ds_tf_wh");
    const columns = AWKWARD.map((c) => `"${c.name}" ${c.pg}`).join(", ");
    await sql(db.url, `CREATE TABLE awkward_src (id integer PRIMARY KEY, ${columns})`);
    await sql(db.url, `INSERT INTO awkward_src VALUES (1, ${AWKWARD.map((c) => c.value).join(", ")}), (2, ${AWKWARD.map(() => "NULL").join(", ")})`);
    for (const target of ["from_snowflake", "from_databricks"]) await sql(db.url, `CREATE TABLE ${target} (id integer PRIMARY KEY, ${columns})`);
    snowflake = await startSnowflakeEmulator({ databaseUrl: db.url, token: "tf-snowflake-token", partitionRows: 1 });
    databricks = await startDatabricksEmulator({ databaseUrl: db.url, token: "tf-databricks-token", warehouseId: "tf0001", chunkRows: 1 });
  });

  afterAll(async () => {
    await stopEngine();
    await snowflake?.close();
    await databricks?.close();
    await db?.drop();
  });

  const sources = () => [
    {
      target: "from_snowflake",
      connectorName: "Snowflake",
      config: {
        credentials: { auth_type: "username/password", username: "SVC", password: "tf-snowflake-token" },
        host: "acme.snowflakecomputing.com",
        role: "R",
        warehouse: "W",
        database: "D",
        schema: "public",
        base_url: snowflake.url,
      },
    },
    {
      target: "from_databricks",
      connectorName: "Databricks",
      config: { host: "dbc-1.cloud.databricks.com", port: "443", access_token: "tf-databricks-token", http_path: "/sql/1.0/warehouses/tf0001", catalog: "main", schema: "public", base_url: databricks.url },
    },
  ];

  it("each value arrives as it left, or by its documented conversion; a re-run sends nothing", async () => {
    const columns = ["id", ...AWKWARD.map((c) => c.name)];
    for (const source of sources()) {
      const f = await createFixture({
        sourceUrl: db.url,
        source: { connectorName: source.connectorName, config: source.config },
        destination: { connectorName: "Postgresql", config: pgConnectorConfig(db.url), catalog: catalogOf(tableStream(source.target)) },
        query: `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM awkward_src`,
        sync: { configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
      });
      const run = async () => {
        const created = await triggerSync(f.workspaceId, f.syncId);
        await executeRun(created.id);
        return { run: await reloadRun(created.id), records: await runRecords(created.id) };
      };
      const first = await run();
      expect(first.run.error, source.connectorName).toBeNull();
      expect(first.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
      const rows = await sql(db.url, `SELECT id, ${AWKWARD.map((c) => `"${c.name}"::text AS "${c.name}"`).join(", ")} FROM ${source.target} ORDER BY id`);
      expect(rows).toHaveLength(2);
      for (const c of AWKWARD) {
        expect(rows[0][c.name], `${source.connectorName} column "${c.name}"`).toBe(c.arrives);
        expect(rows[1][c.name], `${source.connectorName} column "${c.name}" (NULL)`).toBeNull();
      }
      const again = await run();
      expect(again.run).toMatchObject({ totalRows: 0, skippedRows: 2 });
    }
  });
});
