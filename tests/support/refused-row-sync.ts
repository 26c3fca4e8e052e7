// One scenario shared by the source record-failure suites (lib/engine/*-source-record-failures.test.ts):
// a source synced through the engine into a PostgreSQL table whose CHECK constraint `refuse_one`
// refuses exactly one row, then synced again unchanged. What each run did is read back from the
// run and its records, so the suites assert it rather than this helper.
import { expect } from "vitest";
import { executeRun } from "@/lib/engine/execute-run";
import { triggerSync } from "@/lib/engine/index";
import type { SyncRecord } from "@/lib/engine/records/types";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream } from "@/lib/engine/test-support";
import type { Row } from "@/lib/connectors/types";

export interface RefusedRowScenario {
  destinationUrl: string;
  source: { connectorName: string; config: Row };
  query: string;
  primaryKey: string;
  table: string;
  /** Column definitions, including `CONSTRAINT refuse_one CHECK (...)`. */
  columns: string;
  /** Source column → destination column. */
  mapping: Record<string, string>;
}

export interface RunSeen {
  status: string;
  error: string | null;
  totalRows: number;
  successfulRows: number;
  failedRows: number;
  failed: SyncRecord[];
  records: SyncRecord[];
}

async function runOnce(workspaceId: number, syncId: number): Promise<RunSeen> {
  const created = await triggerSync(workspaceId, syncId);
  await executeRun(created.id);
  const run = await reloadRun(created.id);
  const records = await runRecords(created.id);
  return { status: run.status, error: run.error, totalRows: run.totalRows, successfulRows: run.successfulRows, failedRows: run.failedRows, failed: records.filter((r) => r.status === "failed"), records };
}

/** Syncs twice (the second time unchanged) and says what each run did and how many rows the table holds. */
export async function syncRefusingOne(s: RefusedRowScenario): Promise<{ first: RunSeen; again: RunSeen; stored: number }> {
  await sql(s.destinationUrl, `CREATE TABLE ${s.table} (${s.columns})`);
  const f = await createFixture({
    sourceUrl: s.destinationUrl,
    source: s.source,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(s.destinationUrl), catalog: catalogOf(tableStream(s.table, { primary_key: [Object.values(s.mapping)[0]] })) },
    query: s.query,
    primaryKey: s.primaryKey,
    sync: { configuration: Object.entries(s.mapping).map(([from, to]) => ({ from, to, mapping_type: "standard" })) },
  });
  const first = await runOnce(f.workspaceId, f.syncId);
  const stored = (await sql<{ n: number }>(s.destinationUrl, `SELECT count(*)::int AS n FROM ${s.table}`))[0].n;
  const again = await runOnce(f.workspaceId, f.syncId);
  return { first, again, stored };
}

/**
 * The first run succeeds with exactly the refused record failed, its error naming the constraint, and
 * every other row stored; the unchanged re-run sends no row but the failed one, which the engine
 * retries on every run (it fails again, so that run fails: all of its one record failed).
 */
export function expectOnlyTheRefusedRowFailed(seen: { first: RunSeen; again: RunSeen; stored: number }, rows: number, refusedKey: string): void {
  const { first, again, stored } = seen;
  expect(first.failed.map((r) => [r.primaryKey, r.error?.match(/violates check constraint "refuse_one"/)?.[0]])).toEqual([[refusedKey, 'violates check constraint "refuse_one"']]);
  expect(first).toMatchObject({ status: "success", totalRows: rows, successfulRows: rows - 1, failedRows: 1 });
  expect(stored).toBe(rows - 1);
  expect(again.records.map((r) => [r.primaryKey, r.status])).toEqual([[refusedKey, "failed"]]);
  expect(again).toMatchObject({ status: "failed", totalRows: 1, successfulRows: 0, failedRows: 1 });
  expect(again.error).toMatch(/All 1 records? failed/);
}
