// The in-memory filter of delivered fingerprints, loaded from real sync_states: it holds exactly the
// states the probe would call unchanged (delivered or skipped, by an earlier run), across COPY chunks.
import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { UnchangedFilter } from "./unchanged-filter";

useTestDatabase();

const md5 = (text: string) => hash("md5", text);
const ROWS = 60_000;
const RUN = 7;

async function seed(syncId: number): Promise<void> {
  // Every 10th row failed, every 10th+1 was never delivered (''), every 10th+2 was recorded by the
  // current run (an earlier attempt), every 10th+3 was skipped by the write mode; the rest succeeded.
  await pgPool().query(
    `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id, updated_at)
     SELECT $1::int, g::text,
            CASE WHEN g % 10 = 1 THEN '' ELSE md5($1::int || ' row ' || g) END,
            (CASE g % 10 WHEN 0 THEN 'failed' WHEN 3 THEN 'skipped' ELSE 'success' END)::sync_record_status,
            CASE WHEN g % 10 = 2 THEN $2::int ELSE 3 END, now()
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
    // 60,000 rows over COPY chunks of 64 KB: 7 of 10 rows qualify, each once.
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
    expect(f.has(md5("1 row 5").slice(0, 31))).toBe(false);
  });

  it("is not loaded when nothing is tracked, when it is off, or when the sync tracks more than the limit", async () => {
    await seed(3);
    expect(await UnchangedFilter.load(pgPool(), 99, RUN, 1_000_000)).toBeNull();
    expect(await UnchangedFilter.load(pgPool(), 3, RUN, 0)).toBeNull();
    expect(await UnchangedFilter.load(pgPool(), 3, RUN, (ROWS / 10) * 7 - 1)).toBeNull();
    expect((await UnchangedFilter.load(pgPool(), 3, RUN, (ROWS / 10) * 7))?.size).toBe((ROWS / 10) * 7);
  });
});
