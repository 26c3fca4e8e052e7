// Change detection with fingerprints computed by the PostgreSQL source (readFingerprinted): what a
// re-run sees as changed, what it sends and records, and what the seed covers.
//
// The choice documented here: the fingerprint is md5(seed || row_to_json(row)), i.e. of the
// database's text of every column. Every change the row's JSON shows is a change of that text; a
// change of the text that parses to the same JSON (numeric 1.0 → 1.00 scale, json whitespace,
// sub-millisecond timestamptz digits) is detected too and re-sends the row once, even if the payload
// looks unchanged. We prefer sending such a row once to missing a change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresqlSource } from "@/lib/connectors/postgresql/source";
import type { Row } from "@/lib/connectors/types";
import { prisma } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { stopEngine, triggerSync } from "./index";
import { loadRunContext } from "./context";
import { fingerprint, rowJson } from "./diff";
import { executeRun } from "./execute-run";
import {
  catalogOf,
  createFixture,
  pgConnectorConfig,
  reloadRun,
  runRecords,
  sql,
  tableStream,
  type Fixture,
} from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

const QUERY = "SELECT id, amount, doc, seen_at, label FROM items";
const MAPPING = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "amount", to: "amount", mapping_type: "standard" },
  { from: "doc", to: "doc", mapping_type: "standard" },
  { from: "seen_at", to: "seen_at", mapping_type: "standard" },
  { from: "label", to: "label", mapping_type: "standard" },
];

beforeAll(async () => {
  source = await createScratchDatabase("ds_src");
  destination = await createScratchDatabase("ds_dst");
  await sql(
    source.url,
    "CREATE TABLE items (id integer, amount numeric, doc json, seen_at timestamptz, label text)",
  );
  await sql(
    source.url,
    `INSERT INTO items SELECT g, 1.0, '{"a":1}', timestamptz '2026-01-01 00:00:00.123400+00' + g * interval '1 second', 'Item ' || g
     FROM generate_series(1, 50) g`,
  );
  // A row without a key and a repeated key: skipped and counted as duplicate, as before.
  await sql(
    source.url,
    "INSERT INTO items VALUES (NULL, 2, '{}', now(), 'no key'), (7, 3, '{}', now(), 'seven again')",
  );
  await sql(
    destination.url,
    "CREATE TABLE items (id integer PRIMARY KEY, amount text, doc json, seen_at timestamptz, label text)",
  );
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  return { result, run: await reloadRun(created.id), records: await runRecords(created.id) };
}

async function sourceRows(): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for await (const batch of postgresqlSource.read(pgConnectorConfig(source.url), {
    query: QUERY,
    batchSize: 1000,
  })) {
    for (const row of batch) if (row.id !== null && !rows.has(String(row.id))) rows.set(String(row.id), row);
  }
  return rows;
}

describe("fingerprints computed by the PostgreSQL source", () => {
  let f: Fixture;

  // The JSON path's (rows): a sync with a static column would read lines otherwise (pass-through/plan.ts).
  beforeAll(() => {
    process.env.ENGINE_PASS_THROUGH = "0";
  });
  afterAll(() => {
    delete process.env.ENGINE_PASS_THROUGH;
  });

  beforeAll(async () => {
    f = await createFixture({
      sourceUrl: source.url,
      destination: {
        connectorName: "Postgresql",
        config: pgConnectorConfig(destination.url),
        catalog: catalogOf(tableStream("items")),
      },
      query: QUERY,
      sync: { configuration: MAPPING },
    });
  });

  it("a first run sends every row, recording each exactly as read() reads it", async () => {
    const first = await run(f);
    expect(first.result).toBe("success");
    expect(first.run).toMatchObject({
      totalQueryRows: 52,
      skippedRows: 1,
      duplicateRows: 1,
      totalRows: 50,
      successfulRows: 50,
    });
    const expected = await sourceRows();
    expect(first.records).toHaveLength(50);
    for (const record of first.records) expect(record.record).toEqual(expected.get(record.primaryKey));
    expect(first.records[0].record).toEqual({
      id: 1,
      amount: "1.0",
      doc: { a: 1 },
      seen_at: "2026-01-01T00:00:01.1234Z",
      label: "Item 1",
    });

    const again = await run(f);
    expect(again.records).toHaveLength(0);
    expect(again.run).toMatchObject({ totalQueryRows: 52, skippedRows: 51, duplicateRows: 1, totalRows: 0 });
  });

  it("detects changes of the database's text, also those the row's JSON would not show", async () => {
    await sql(source.url, "UPDATE items SET amount = 1.00 WHERE id = 3"); // "1.0" → "1.00"
    await sql(source.url, `UPDATE items SET doc = '{"a": 1}' WHERE id = 4`); // same JSON value
    await sql(source.url, "UPDATE items SET seen_at = seen_at + interval '1 microsecond' WHERE id = 5"); // same milliseconds, kept (issue 33)
    await sql(source.url, "UPDATE items SET label = 'Renamed' WHERE id = 6");
    const { result, records } = await run(f);
    expect(result).toBe("success");
    expect(records.map((r) => [r.primaryKey, r.action, r.status])).toEqual([
      ["3", "destination_update", "success"],
      ["4", "destination_update", "success"],
      ["5", "destination_update", "success"],
      ["6", "destination_update", "success"],
    ]);
    const byKey = new Map(records.map((r) => [r.primaryKey, r.record as Row]));
    expect(byKey.get("3")?.amount).toBe("1.00");
    expect(byKey.get("4")?.doc).toEqual({ a: 1 });
    expect(byKey.get("5")?.seen_at).toBe("2026-01-01T00:00:05.123401Z");
    expect(
      (await sql(destination.url, "SELECT amount, label FROM items WHERE id IN (3, 6) ORDER BY id")).map(
        (r) => [r.amount, r.label],
      ),
    ).toEqual([
      ["1.00", "Item 3"],
      ["1.0", "Renamed"],
    ]);
    expect((await run(f)).records).toHaveLength(0);
  });

  it("states holding the engine's own fingerprints (stored before the source hashed rows) are re-baselined, not re-sent", async () => {
    const last = await run(f);
    expect(last.records).toHaveLength(0);
    // What every state held before: md5 of the seed and the row's JSON, computed by the engine.
    const { fingerprintSeed } = await loadRunContext(last.run);
    const rows = await sourceRows();
    const keys = [...rows.keys()];
    await sql(
      process.env.DATABASE_URL as string,
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
       SELECT $1, e.primary_key, x.f, e.last_status, e.last_run_id FROM unnest($2::text[], $3::text[]) AS x(k, f)
       JOIN sync_state_entries e ON e.sync_id = $1 AND e.primary_key = x.k
       ON CONFLICT (sync_id, primary_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint`,
      [f.syncId, keys, keys.map((k) => fingerprint(fingerprintSeed, rowJson(rows.get(k)!)))],
    );
    await sql(source.url, "UPDATE items SET label = 'Changed since' WHERE id = 9");

    const rerun = await run(f);
    expect(rerun.records.map((r) => r.primaryKey), "only the row that really changed is sent").toEqual(["9"]);
    expect(rerun.run).toMatchObject({ totalRows: 1, skippedRows: 50, successfulRows: 1 });
    // The states now hold the source's fingerprints: the next run reads every row as unchanged.
    expect((await run(f)).records).toHaveLength(0);
  });

  it("a mapping change re-sends every row once", async () => {
    await prisma().sync.update({
      where: { id: f.syncId },
      data: { configuration: MAPPING.filter((m) => m.to !== "label") },
    });
    const changed = await run(f);
    expect(changed.records).toHaveLength(50);
    expect(changed.records.every((r) => r.action === "destination_update" && r.status === "success")).toBe(
      true,
    );
    expect((await run(f)).records).toHaveLength(0);
  });
});

describe("bigint columns", () => {
  it("are numbers in records while exact, digits beyond, and a re-run with no change sends nothing", async () => {
    await sql(source.url, "CREATE TABLE big_items (id bigint PRIMARY KEY, phone bigint, amount numeric)");
    await sql(source.url, "INSERT INTO big_items VALUES (1, 5550000001, 1.50), (9007199254740993, 9223372036854775807, NULL)");
    await sql(destination.url, "CREATE TABLE big_items (id bigint PRIMARY KEY, phone bigint, amount numeric)");
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("big_items")) },
      query: "SELECT id, phone, amount FROM big_items",
      sync: { configuration: ["id", "phone", "amount"].map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });
    const first = await run(f);
    expect(first.result).toBe("success");
    expect(first.records.map((r) => r.record).sort((a, b) => String((a as Row).id).length - String((b as Row).id).length)).toEqual([
      { id: 1, phone: 5550000001, amount: "1.50" },
      { id: "9007199254740993", phone: "9223372036854775807", amount: null },
    ]);
    // Written without loss, whatever form the value took.
    expect(await sql(destination.url, "SELECT id::text, phone::text, amount::text FROM big_items ORDER BY id")).toEqual([
      { id: "1", phone: "5550000001", amount: "1.50" },
      { id: "9007199254740993", phone: "9223372036854775807", amount: null },
    ]);
    expect((await run(f)).records).toHaveLength(0);
  });
});
