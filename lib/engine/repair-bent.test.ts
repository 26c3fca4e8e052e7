// Issue 33, item 4: what an existing sync does on its first run after the value model. Before it,
// a PostgreSQL source fingerprinted rows as md5(seed || row_to_json(row)) and the engine bent some
// values on the way (float8 -Infinity arrived as NULL, a number inside JSON as a JavaScript number,
// timestamptz cut to milliseconds; intervals were refused). Here the states are put back to those
// fingerprints and the destination to those bent values; the next run sends again exactly the rows
// holding a value of a kind that was bent, which repairs them, and leaves the others alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { loadRunContext } from "./context";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

const COLUMNS = "id integer PRIMARY KEY, f8 double precision, span interval, doc jsonb, seen timestamptz, amount numeric(38,10), label text, day date";
const QUERY = "SELECT id, f8, span, doc, seen, amount, label, day FROM items";
const TEXT = "SELECT id, f8::text, span::text, doc::text, seen::text, amount::text, label, day::text FROM items ORDER BY id";
let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_repair_src");
  destination = await createScratchDatabase("ds_repair_dst");
  await sql(source.url, `CREATE TABLE items (${COLUMNS})`);
  // Rows 1-4 each hold one value of a kind bent before; rows 5 and 6 only values always carried exactly.
  await sql(
    source.url,
    `INSERT INTO items VALUES
      (1, '-Infinity', NULL, NULL, '2024-05-01 10:00:00.123+00', 1.5, 'one', '2024-05-01'),
      (2, 0.5, '-1 days', NULL, NULL, 2.5, 'two', NULL),
      (3, 0.25, NULL, '{"big": 12345678901234567890}', NULL, NULL, 'three', '0001-01-01'),
      (4, NULL, NULL, '{"a": 1}', '2024-05-01 10:00:00.123456+00', 9999999999999999999999999999.9999999999, 'four', NULL),
      (5, 1.5, NULL, '{"a": [1, 2]}', '2024-05-01 10:00:00.5+00', 0.0000000001, 'five', '9999-12-31'),
      (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  );
  await sql(destination.url, `CREATE TABLE items (${COLUMNS}, note text)`);
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

describe("an existing sync's next run after the value model", () => {
  it("re-sends exactly the rows whose values were bent before, and repairs them", async () => {
    // The JSON path (a static column), where rows were parsed, mapped and fingerprinted by the source.
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("items")) },
      query: QUERY,
      sync: {
        configuration: [
          ...["id", "f8", "span", "doc", "seen", "amount", "label", "day"].map((c) => ({ from: c, to: c, mapping_type: "standard" })),
          { from: "old", to: "note", mapping_type: "static" },
        ],
      },
    });
    const run = async () => {
      const created = await triggerSync(f.workspaceId, f.syncId);
      await executeRun(created.id);
      return { run: await reloadRun(created.id), records: await runRecords(created.id) };
    };
    // Its first run as the previous version ran it: rows, not lines (those came later).
    process.env.ENGINE_PASS_THROUGH = "0";
    const first = await run().finally(() => delete process.env.ENGINE_PASS_THROUGH);
    expect(first.run).toMatchObject({ successfulRows: 6, failedRows: 0 });

    // The states as the previous version left them: the source's plain fingerprints of every row.
    const { fingerprintSeed } = await loadRunContext(first.run);
    const old = await sql(source.url, `SELECT id::text AS k, md5($1 || row_to_json(x)::text) AS f FROM (${QUERY}) x`, [fingerprintSeed]);
    await sql(
      process.env.DATABASE_URL as string,
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
       SELECT $1, e.primary_key, x.f, e.last_status, e.last_run_id FROM unnest($2::text[], $3::text[]) AS x(k, f)
       JOIN sync_state_entries e ON e.sync_id = $1 AND e.primary_key = x.k
       ON CONFLICT (sync_id, primary_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint`,
      [f.syncId, old.map((r) => r.k), old.map((r) => r.f)],
    );
    // And the destination as it bent them (the interval row was refused then: it never arrived).
    await sql(destination.url, "UPDATE items SET f8 = NULL WHERE id = 1");
    await sql(destination.url, "DELETE FROM items WHERE id = 2");
    await sql(destination.url, `UPDATE items SET doc = '{"big": 12345678901234567000}' WHERE id = 3`);
    await sql(destination.url, "UPDATE items SET seen = date_trunc('milliseconds', seen) WHERE id = 4");

    const next = await run();
    // Its states hold the JSON path's fingerprints, so it stays on that path (pass-through/plan.ts).
    expect(readPath(next.run)).toBe("rows");
    expect(next.records.map((r) => r.primaryKey).sort(), "only the rows holding a value bent before").toEqual(["1", "2", "3", "4"]);
    expect(next.run).toMatchObject({ totalRows: 4, skippedRows: 2, successfulRows: 4, failedRows: 0 });
    // Repaired: every value as it left.
    expect(await sql(destination.url, TEXT)).toEqual(await sql(source.url, TEXT));
    // The states now hold the new fingerprints: the run after sends nothing.
    expect((await run()).run).toMatchObject({ totalRows: 0, skippedRows: 6 });
  });
});
