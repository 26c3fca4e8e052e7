// The in-memory filter of delivered fingerprints, loaded from real sync_states: it holds exactly the
// states the probe would call unchanged (delivered or skipped, by an earlier run), across COPY chunks.
import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { engineSettings } from "./settings";
import { loadUnchangedFilter, UnchangedFilter } from "./unchanged-filter";
import { mulberry32 } from "@/tests/support/random";

useTestDatabase();

const md5 = (text: string) => hash("md5", text);
const ROWS = 60_000;
const RUN = 7;

async function seed(syncId: number): Promise<void> {
  // Every 10th row failed, every 10th+1 was never delivered (''), every 10th+2 was recorded by the
  // current run (an earlier attempt), every 10th+3 was skipped by the write mode; the rest succeeded.
  await pgPool().query(
    `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
     SELECT $1::int, g::text,
            CASE WHEN g % 10 = 1 THEN '' ELSE md5($1::int || ' row ' || g) END,
            (CASE g % 10 WHEN 0 THEN 'failed' WHEN 3 THEN 'skipped' ELSE 'success' END)::sync_record_status,
            CASE WHEN g % 10 = 2 THEN $2::int ELSE 3 END
       FROM generate_series(1, $3::int) g`,
    [syncId, RUN, ROWS],
  );
}

describe("UnchangedFilter", () => {
  it("holds the fingerprints of rows delivered or skipped by earlier runs, and no others", { timeout: 30_000 }, async () => {
    await seed(1);
    await seed(2);
    const filter = await UnchangedFilter.load(pgPool(), 1, RUN, 1_000_000);
    expect(filter).not.toBeNull();
    const f = filter as UnchangedFilter;
    // 60,000 rows over pages of 65,536 and fewer: 7 of 10 rows qualify, each once.
    expect(f.size).toBe((ROWS / 10) * 7);
    const held = { yes: 0, no: 0 };
    for (let g = 1; g <= ROWS; g++) {
      const expected = ![0, 1, 2].includes(g % 10);
      if (f.has(md5(`1 row ${g}`)) === expected) held.yes++;
      else held.no++;
      // Another sync's rows are not this one's.
      if (f.has(md5(`2 row ${g}`))) held.no++;
    }
    expect(held).toEqual({ yes: ROWS, no: 0 });
    // Upper-case digits read the same; anything that is not 32 hex digits is never "unchanged".
    expect(f.has(md5("1 row 5").toUpperCase())).toBe(true);
    expect(f.has(md5("1 row 60001"))).toBe(false);
    expect(f.has("")).toBe(false);
    expect(f.has(`zz${md5("1 row 5").slice(2)}`)).toBe(false);
    // The filter keeps 64 bits, but the whole of a fingerprint must be hex to be "unchanged".
    expect(f.has(`${md5("1 row 5").slice(0, 16)}zz${md5("1 row 5").slice(18)}`)).toBe(false);
    expect(f.has(`${md5("1 row 5").slice(0, 30)}zz`)).toBe(false);
    expect(f.has(md5("1 row 5").slice(0, 31))).toBe(false);
  });

  it("reads a sync of several pages whole, growing its table as it goes", { timeout: 30_000 }, async () => {
    await pgPool().query(
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
       SELECT 4, g::text, md5('4 row ' || g), 'success', 3 FROM generate_series(1, 140000) g`,
    );
    const f = (await UnchangedFilter.load(pgPool(), 4, RUN, 1_000_000)) as UnchangedFilter;
    expect(f.size).toBe(140_000);
    // Keys sort as text ("99999" after "139999"): the first, a middle and the last of each page are there.
    for (const g of [1, 2, 65_536, 65_537, 99_999, 100_000, 131_072, 139_999, 140_000]) expect(f.has(md5(`4 row ${g}`))).toBe(true);
  });

  it("grows no further than its limit needs: ~11.4 bytes an entry at the limit, whatever the guess", { timeout: 30_000 }, async () => {
    await pgPool().query(
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
       SELECT 6, g::text, md5('6 row ' || g), 'success', 3 FROM generate_series(1, 100000) g`,
    );
    const capacity = (f: UnchangedFilter | null) => (f as unknown as { capacity: number }).capacity;
    // No guess (65,536 slots), and a guess a little short: the table stops at the limit's size.
    for (const guess of [0, 90_000]) {
      const f = await UnchangedFilter.load(pgPool(), 6, RUN, 100_000, guess);
      expect(f?.size).toBe(100_000);
      expect(capacity(f)).toBeLessThanOrEqual(Math.ceil(100_000 / 0.7));
      for (const g of [1, 50_000, 100_000]) expect(f?.has(md5(`6 row ${g}`))).toBe(true);
    }
    // One more than the limit: the filter holds what fits, the rest is left to the probe.
    const partial = await UnchangedFilter.load(pgPool(), 6, RUN, 99_999, 90_000);
    expect(partial?.size).toBe(99_999);
    expect(capacity(partial)).toBeLessThanOrEqual(Math.ceil(100_000 / 0.7));
  });

  it("holds exactly what was added across many growths, with clustered and colliding words (fuzz)", () => {
    // Built empty (the smallest table) and filled far past it: every entry must survive each regrowth,
    // and nothing else may be found, whatever the probe chains (many entries share their first word).
    const make = UnchangedFilter as unknown as { new (expected: number): UnchangedFilter };
    const filter = new make(0);
    const random = mulberry32(99);
    const hex = (w: number[]) => w.map((x) => x.toString(16).padStart(8, "0")).join("") + "0".repeat(16);
    const added = new Set<string>();
    const pairs: number[][] = [];
    for (let i = 0; i < 300_000; i++) {
      // Some share a handful of first words (a long probe chain), some are 0 in one word, and a few
      // are added twice.
      const w0 = i % 500 === 0 ? random() % 8 : random();
      const w = [w0, i % 11 === 0 ? 0 : random() % 100_000];
      if ((w[0] | w[1]) === 0) continue;
      filter.add(w[0], w[1]);
      if (i % 50 === 0) filter.add(w[0], w[1]);
      added.add(hex(w));
      pairs.push(w);
    }
    expect(filter.size).toBe(added.size);
    expect(pairs.filter((w) => !filter.has(hex(w)))).toEqual([]);
    let found = 0;
    for (let i = 0; i < 100_000; i++) {
      const w = [i % 500 === 0 ? random() % 8 : random(), random() % 100_000];
      if (filter.has(hex(w)) !== added.has(hex(w))) found++;
    }
    expect(found).toBe(0);
    expect(filter.has(hex([0, 0]))).toBe(false);
  });

  it("is not loaded when nothing is tracked or when it is off, and holds what fits of a sync past its limit", async () => {
    await seed(3);
    expect(await UnchangedFilter.load(pgPool(), 99, RUN, 1_000_000)).toBeNull();
    expect(await UnchangedFilter.load(pgPool(), 3, RUN, 0)).toBeNull();
    // A fingerprint that is not hex (the engine writes none): no filter, every row is probed.
    await pgPool().query(
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id) VALUES (5, '1', md5('x'), 'success', 3), (5, '2', repeat('z', 32), 'success', 3)`,
    );
    expect(await UnchangedFilter.load(pgPool(), 5, RUN, 1_000_000)).toBeNull();
    // The limit is on the fingerprints the filter holds (7 of 10 rows here): one less, and the filter
    // holds that many of them, each one the sync's; the rows of the others are probed.
    const held = (ROWS / 10) * 7;
    const partial = (await UnchangedFilter.load(pgPool(), 3, RUN, held - 1)) as UnchangedFilter;
    expect(partial.size).toBe(held - 1);
    let mine = 0;
    for (let g = 1; g <= ROWS; g++) if (partial.has(md5(`3 row ${g}`))) mine++;
    expect(mine).toBe(held - 1);
    expect((await UnchangedFilter.load(pgPool(), 3, RUN, held))?.size).toBe(held);
    // The connection left in the middle of its COPY is not reused: the pool still answers.
    expect((await pgPool().query("SELECT 1 AS one")).rows[0].one).toBe(1);
  });

  it("is sized by the sync's last general read, even one of more rows than the filter may hold", async () => {
    const workspaceId = await newWorkspace();
    const { sync } = await bareSync(workspaceId);
    // States seeded above under plain numbers may share the new sync's id.
    await pgPool().query("DELETE FROM sync_states WHERE sync_id = $1", [sync.id]);
    await seed(sync.id);
    const read = { noStates: false, fromCursor: false };
    const ctx = { sync: { id: sync.id, syncMode: "incremental" }, run: { id: RUN } };
    const lastRead = async (rows: number) =>
      pgPool().query(
        `INSERT INTO sync_runs (workspace_id, sync_id, status, total_query_rows, created_at, updated_at) VALUES ($1, $2, 'success', $3, now(), now())`,
        [workspaceId, sync.id, rows],
      );
    // No earlier run: loaded (the load itself holds to the limit).
    expect((await loadUnchangedFilter(pgPool(), ctx, read))?.size).toBe((ROWS / 10) * 7);
    await lastRead(ROWS);
    expect((await loadUnchangedFilter(pgPool(), ctx, read))?.size).toBe((ROWS / 10) * 7);
    const capacity = async () => ((await loadUnchangedFilter(pgPool(), ctx, read)) as unknown as { capacity: number }).capacity;
    expect(await capacity()).toBe(Math.ceil(ROWS / 0.7));
    // More rows than the limit: the table is sized for the limit, and still holds every fingerprint here.
    await lastRead(engineSettings.unchangedFilterMaxRows + 1);
    expect(await capacity()).toBe(Math.ceil(engineSettings.unchangedFilterMaxRows / 0.7));
    expect((await loadUnchangedFilter(pgPool(), ctx, read))?.size).toBe((ROWS / 10) * 7);
    // A test run since (one row read) says nothing of the sync's size: the general run still sizes it.
    await pgPool().query(
      `INSERT INTO sync_runs (workspace_id, sync_id, status, sync_run_type, total_query_rows, created_at, updated_at)
       VALUES ($1, $2, 'success', 'test', 1, now() + interval '1 second', now())`,
      [workspaceId, sync.id],
    );
    expect(await capacity()).toBe(Math.ceil(engineSettings.unchangedFilterMaxRows / 0.7));
  });
});
