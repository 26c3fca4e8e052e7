// The type-fidelity suite (tests/support/type-fidelity.ts), PostgreSQL to PostgreSQL by every engine
// path: the 19-type table synced as it is (pass-through, COPY text); with one static column added, as
// mapped lines (the lines decoded into the value model, mapped and written back; twice: beside the
// array columns, and with a rate limit), and with lines turned off (the JSON path: rows read as rows).
// Per column, what arrived equals what left; the records show each value exactly; a re-run sends nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactJson } from "@/lib/connectors/shared/values";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { expectRecordValues, FIDELITY_PATHS, expectSameCells, PG_TYPES, pgColumnsDdl, pgInsert, pgTextSelect, ROWS } from "@/tests/support/type-fidelity";
import { executeRun } from "./execute-run";
import { planSync, stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, reloadRun, runRecords, sql, tableStream, type Fixture } from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };
const NAMES = ["id", ...PG_TYPES.map((c) => c.name)];
const STANDARD = NAMES.map((c) => ({ from: c, to: c, mapping_type: "standard" }));

beforeAll(async () => {
  source = await createScratchDatabase("ds_tf_src");
  destination = await createScratchDatabase("ds_tf_dst");
  await sql(source.url, `CREATE TABLE awkward (${pgColumnsDdl(PG_TYPES)})`);
  await sql(source.url, pgInsert("awkward", PG_TYPES));
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

function fixture(table: string, configuration: Record<string, string>[], rate?: number): Promise<Fixture> {
  const catalog = catalogOf(tableStream(table), rate ? { request_rate_limit: rate } : {});
  return createFixture({
    sourceUrl: source.url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog },
    query: `SELECT ${NAMES.map((n) => `"${n}"`).join(", ")} FROM awkward`,
    sync: { configuration },
  });
}

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  const r = await reloadRun(created.id);
  return { result, run: r, path: readPath(r), records: await runRecords(created.id) };
}

describe("PostgreSQL to PostgreSQL, 19 awkward types", () => {
  for (const { path, suffix, title, computed, rate } of FIDELITY_PATHS) {
    const table = `awkward_${suffix}`;
    it(`arrives as it left, column by column, by the ${title}`, async () => {
      await sql(destination.url, `CREATE TABLE ${table} (${pgColumnsDdl(PG_TYPES, ", note text")})`);
      const configuration = computed ? [...STANDARD, { from: "fixed", to: "note", mapping_type: "static" }] : STANDARD;
      const f = await fixture(table, configuration, rate);
      if (path === "rows") process.env.ENGINE_PASS_THROUGH = "0";
      const first = await run(f).finally(() => delete process.env.ENGINE_PASS_THROUGH);
      expect(first.path).toBe(path);
      expect(first.records.filter((r) => r.status === "failed").map((r) => r.error)).toEqual([]);
      expect(first.result).toBe("success");
      expect(first.run).toMatchObject({ totalRows: ROWS, successfulRows: ROWS, failedRows: 0 });

      const left = await sql(source.url, pgTextSelect("awkward", PG_TYPES));
      const arrived = await sql(destination.url, pgTextSelect(table, PG_TYPES));
      expectSameCells(left, arrived, PG_TYPES.map((c) => c.name));

      // The records show every value exactly, by the value model's rules.
      for (const record of first.records) expectRecordValues(Number(record.primaryKey), record.record as Record<string, unknown>);

      // Nothing changed: nothing is sent again (fingerprints are stable for exact values).
      const again = await run(f);
      expect(again.run).toMatchObject({ totalQueryRows: ROWS, totalRows: 0, skippedRows: ROWS });
    });
  }

  it("the plan shows each value exactly, in the sample rows and payloads", async () => {
    await sql(destination.url, `CREATE TABLE awkward_plan (${pgColumnsDdl(PG_TYPES)})`);
    const f = await fixture("awkward_plan", STANDARD);
    const plan = await planSync(f.workspaceId, f.syncId, { sampleSize: ROWS });
    expect(plan.samples.insert).toHaveLength(ROWS);
    for (const sample of plan.samples.insert) {
      expectRecordValues(Number(sample.primary_key), sample.row as Record<string, unknown>);
      expectRecordValues(Number(sample.primary_key), sample.payload as Record<string, unknown>);
    }
  });

  it("the records' JSON, as the API writes it, carries big numbers inside JSON exactly", async () => {
    const f = await fixture("awkward_api", STANDARD);
    await sql(destination.url, `CREATE TABLE awkward_api (${pgColumnsDdl(PG_TYPES)})`);
    const r = await run(f);
    const one = r.records.find((x) => x.primaryKey === "1");
    expect(exactJson(one?.record)).toContain('"big":12345678901234567890,"dec":1.50');
  });
});
