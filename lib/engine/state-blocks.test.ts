// States in blocks (state-blocks.ts) read exactly as rows would: a row overrides its key's block
// entry, '-' hides it, a failed retry keeps the fingerprint last delivered, whole-sync readers see
// each key once, and a batch whose keys meet a block already written goes to rows.
import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { withTransaction } from "./transaction";
import { mulberry32 } from "@/tests/support/random";
import { fingerprintAll } from "./fingerprints";
import { BLOCK_KEYS, blockKey, compareC } from "./block-order";
import { countStates, fingerprintText, statePages, writeStateBlocks, type BlockStatus, type StateFingerprint } from "./state-blocks";
import { forgetStates, writeStates, type StateChange } from "./sync-state-store";
import { UnchangedFilter } from "./unchanged-filter";

useTestDatabase();

const md5 = (text: string) => hash("md5", text);
const RUN = 5;

async function statesOf(syncId: number, keys: string[]): Promise<Record<string, string>> {
  const { rows } = await pgPool().query<{ primary_key: string; fingerprint: string; last_status: string; last_run_id: number }>(
    "SELECT primary_key, fingerprint, last_status::text, last_run_id FROM ds_states_of($1, $2::text[])",
    [syncId, keys],
  );
  return Object.fromEntries(rows.map((r) => [r.primary_key, `${r.fingerprint}/${r.last_status}/${r.last_run_id}`]));
}

async function entries(syncId: number): Promise<Record<string, string>> {
  const { rows } = await pgPool().query<{ primary_key: string; fingerprint: string; last_status: string; last_run_id: number }>(
    "SELECT primary_key, fingerprint, last_status::text, last_run_id FROM sync_state_entries WHERE sync_id = $1",
    [syncId],
  );
  return Object.fromEntries(rows.map((r) => [r.primary_key, `${r.fingerprint}/${r.last_status}/${r.last_run_id}`]));
}

async function pages(syncId: number, exceptRun = 0): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of statePages(pgPool(), syncId, exceptRun, 100)) for (const r of page) keys.push(r.primary_key);
  return keys.sort();
}

/** Blocks of the sync whose range starts at or before the end of the one before. */
const overlaps = async (syncId: number) =>
  (
    await pgPool().query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE first_key <= prev)::int AS n
         FROM (SELECT first_key, lag(last_key) OVER (ORDER BY first_key) AS prev FROM sync_state_blocks WHERE sync_id = $1) x`,
      [syncId],
    )
  ).rows[0].n;

const change = (key: string, fingerprint: string, ok: boolean, action: StateChange["item"]["action"] = "destination_update"): StateChange => ({
  ok,
  item: { key, fingerprint, action },
});

describe("state blocks", () => {
  it("take fingerprints as the digests' bytes where they were computed, the same as their hex", async () => {
    // Keys out of block order ("10" before "9"), so the blocks are written through the sort.
    const keys = Array.from({ length: 150 }, (_, i) => String(150 - i));
    const digests = fingerprintAll("seed", keys);
    const statuses: BlockStatus[] = keys.map((_, i) => (i % 7 === 0 ? "failed" : "success"));
    const sources: StateFingerprint[] = keys.map((_, i) =>
      statuses[i] === "failed" ? "" : { fingerprint: digests.hex(i), digestInto: (buf: Buffer, at: number) => digests.copy(i, buf, at) },
    );
    await withTransaction(pgPool(), (client) => writeStateBlocks(client, 3, RUN, keys, sources, statuses));
    await withTransaction(pgPool(), (client) => writeStateBlocks(client, 4, RUN, keys, sources.map(fingerprintText), statuses));
    const bytes = await entries(3);
    expect(bytes).toEqual(await entries(4));
    expect(bytes["150"]).toBe(`/failed/${RUN}`);
    expect(bytes["149"]).toBe(`${md5("seed149")}/success/${RUN}`);
    expect(Object.keys(bytes)).toHaveLength(150);
  });

  it("are read as rows would be, overridden by rows, hidden by '-'", { timeout: 30_000 }, async () => {
    const keys = Array.from({ length: 300 }, (_, i) => String(i + 1));
    const statuses: BlockStatus[] = keys.map((_, i) => (i % 10 === 0 ? "failed" : i % 10 === 1 ? "skipped" : "success"));
    const fps = keys.map((k, i) => (statuses[i] === "failed" ? "" : md5(k)));
    await withTransaction(pgPool(), (client) => writeStateBlocks(client, 1, RUN, keys, fps, statuses));
    // Another sync's blocks of the same keys are not this one's.
    await withTransaction(pgPool(), (client) => writeStateBlocks(client, 2, RUN, keys, keys.map((k) => md5(`x${k}`)), keys.map(() => "success" as const)));
    const { rows: blocks } = await pgPool().query<{ n: number }>("SELECT count(*)::int AS n FROM sync_state_blocks WHERE sync_id = 1");
    expect(blocks[0].n).toBe(Math.ceil(300 / BLOCK_KEYS));

    expect(await statesOf(1, ["1", "2", "3", "300", "301", "1"])).toEqual({
      "1": `/failed/${RUN}`,
      "2": `${md5("2")}/skipped/${RUN}`,
      "3": `${md5("3")}/success/${RUN}`,
      "300": `${md5("300")}/success/${RUN}`,
    });
    expect(Object.keys(await entries(1))).toHaveLength(300);
    expect(await countStates(pgPool(), 1)).toBe(300);
    expect(await countStates(pgPool(), 1, RUN)).toBe(0);

    // A later run: 3 delivered anew, 4 failed (keeps the block's fingerprint), 11 failed (never
    // delivered: ''), 5 deleted in the destination, 6 forgotten.
    await withTransaction(pgPool(), (client) =>
      writeStates(client, 1, 9, [change("3", md5("3'"), true), change("4", md5("4'"), false), change("11", md5("11'"), false), change("5", md5("5"), true, "destination_delete")], false),
    );
    await forgetStates(pgPool(), 1, ["6"]);
    expect(await statesOf(1, ["3", "4", "5", "6", "7", "11"])).toEqual({
      "3": `${md5("3'")}/success/9`,
      "4": `${md5("4")}/failed/9`,
      "7": `${md5("7")}/success/${RUN}`,
      "11": `/failed/9`,
    });
    const all = await entries(1);
    expect(Object.keys(all)).toHaveLength(298);
    expect(all["3"]).toBe(`${md5("3'")}/success/9`);
    expect(all["5"]).toBeUndefined();
    expect(await countStates(pgPool(), 1)).toBe(298);
    expect(await countStates(pgPool(), 1, 9)).toBe(295);
    // Pages: rows and entries, each key once, forgotten ones not at all.
    const paged = await pages(1);
    expect(paged).toEqual(Object.keys(all).sort());
    expect(await pages(1, RUN)).toEqual(["11", "3", "4"]);

    // A forgotten key delivered again is a state once more.
    await withTransaction(pgPool(), (client) => writeStates(client, 1, 10, [change("5", md5("5''"), true, "destination_insert")], false));
    expect(await statesOf(1, ["5"])).toEqual({ "5": `${md5("5''")}/success/10` });
    // A failed insert of a forgotten key was never delivered: '' (not the stale block entry's).
    await forgetStates(pgPool(), 1, ["7"]);
    await withTransaction(pgPool(), (client) => writeStates(client, 1, 10, [change("7", md5("7''"), false, "destination_insert")], false));
    expect(await statesOf(1, ["7"])).toEqual({ "7": "/failed/10" });

    // The unchanged filter holds what the probe would call unchanged: not 3's old fingerprint.
    const filter = (await UnchangedFilter.load(pgPool(), 1, 99, 1_000_000)) as UnchangedFilter;
    expect(filter.has(md5("3"))).toBe(false);
    expect(filter.has(md5("3'"))).toBe(true);
    expect(filter.has(md5("2"))).toBe(true);
    expect(filter.has(md5("8"))).toBe(true);
    expect(filter.has(md5("6"))).toBe(false);
    expect(filter.size).toBe(Object.values(await entries(1)).filter((v) => /^[0-9a-f]{32}\/(success|skipped)/.test(v)).length);
  });

  it("of a batch whose range meets a block are rows instead: blocks never overlap, every key is found", { timeout: 60_000 }, async () => {
    const random = mulberry32(37);
    const keys = Array.from({ length: 6000 }, (_, i) => `${Math.floor(random() * 1e9).toString(36)}-${i}`);
    const written: boolean[] = [];
    for (let at = 0; at < keys.length; at += 500) {
      const batch = keys.slice(at, at + 500);
      const left = await withTransaction(pgPool(), (client) => writeStateBlocks(client, 3, RUN, batch, batch.map(md5), batch.map(() => "success" as const)));
      expect(left.length === 0 || left.length === batch.length).toBe(true);
      written.push(left.length === 0);
    }
    // Keys in no order: the first batch's blocks span the key space, every later batch meets them.
    expect(written).toEqual([true, ...Array.from({ length: 11 }, () => false)]);
    expect(await overlaps(3)).toBe(0);
    // Three batches in flight at once are checked against each other too.
    const ranges = [["k10", "k20"], ["k30", "k40"], ["k15", "k35"]];
    const concurrent = await Promise.all(
      ranges.map(async (batch) => (await withTransaction(pgPool(), (client) => writeStateBlocks(client, 6, RUN, batch, batch.map(md5), batch.map(() => "success" as const)))).length === 0),
    );
    expect(concurrent.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(concurrent.filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(await overlaps(6)).toBe(0);
  });

  it("of a source merging ordered streams go in blocks per stream: blocks never overlap, every key is found", { timeout: 60_000 }, async () => {
    // Two streams of 20,000 keys each, sent in alternating runs of 1,000 (as ClickHouse's parallel
    // reads of a table), recorded in batches of 700: a batch holds the end of one run and the start of another.
    const keys: string[] = [];
    for (let run = 0; run < 20; run++) for (const base of [0, 20_000]) for (let k = 1; k <= 1000; k++) keys.push(String(base + run * 1000 + k));
    const success = (key: string): StateChange => ({ ok: true, item: { key, fingerprint: md5(key), action: "destination_insert" } });
    for (let at = 0; at < keys.length; at += 700) {
      const batch = keys.slice(at, at + 700);
      await withTransaction(pgPool(), (client) => writeStates(client, 8, RUN, batch.map(success), true));
    }
    expect(await overlaps(8)).toBe(0);
    const { rows } = await pgPool().query<{ n: number }>("SELECT count(*)::int AS n FROM sync_states WHERE sync_id = 8");
    // Only keys of stretches shorter than a block, between the runs, are rows (before: every batch after the first).
    expect(rows[0].n).toBeLessThan(keys.length / 20);
    expect(await countStates(pgPool(), 8)).toBe(keys.length);
    const sample = keys.filter((_, i) => i % 97 === 0);
    expect(await statesOf(8, sample)).toEqual(Object.fromEntries(sample.map((k) => [k, `${md5(k)}/success/${RUN}`])));
  });

  it("of integer keys read in order do not overlap", { timeout: 60_000 }, async () => {
    const keys = Array.from({ length: 15_000 }, (_, i) => String(i + 1));
    for (let at = 0; at < keys.length; at += 5000) {
      const batch = keys.slice(at, at + 5000);
      expect(await withTransaction(pgPool(), (client) => writeStateBlocks(client, 5, RUN, batch, batch.map(md5), batch.map(() => "success" as const)))).toEqual([]);
    }
    expect(await overlaps(5)).toBe(0);
    const { rows } = await pgPool().query<{ ordered: boolean }>(
      "SELECT bool_and(keys = ARRAY(SELECT u FROM unnest(keys) AS u ORDER BY ds_block_key(u))) AS ordered FROM sync_state_blocks WHERE sync_id = 5",
    );
    expect(rows[0].ordered).toBe(true);
    expect(Object.keys(await statesOf(5, ["1", "9", "10", "5000", "5001", "9999", "10000", "15000", "15001"])).sort()).toEqual(
      ["1", "9", "10", "5000", "5001", "9999", "10000", "15000"].sort(),
    );
  });

  it("take ranges in collation C, past U+FFFF too", async () => {
    expect(["\u{1F600}", "\uFF21", "a", "Z", "é"].sort(compareC)).toEqual(["Z", "a", "é", "\uFF21", "\u{1F600}"]);
    // Keys of one UTF-8 length (12 bytes) where UTF-16 order and collation C disagree.
    const keys = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0 ? `\uFF21\uFF21\uFF21${String.fromCharCode(0x4e00 + i)}` : `\u{1F600}\u{1F600}${String(1000 + i)}`,
    );
    expect(await withTransaction(pgPool(), (client) => writeStateBlocks(client, 4, RUN, keys, keys.map(md5), keys.map(() => "success" as const)))).toEqual([]);
    expect(await overlaps(4)).toBe(0);
    expect(Object.keys(await statesOf(4, keys)).sort()).toEqual([...keys].sort());
    // The same keys handed over in block order already (no sort): the blocks hold them in the database's order.
    const inOrder = [...keys].sort((a, b) => compareC(blockKey(a), blockKey(b)));
    expect(await withTransaction(pgPool(), (client) => writeStateBlocks(client, 7, RUN, inOrder, inOrder.map(md5), inOrder.map(() => "success" as const)))).toEqual([]);
    const { rows } = await pgPool().query<{ ordered: boolean }>(
      "SELECT bool_and(keys = ARRAY(SELECT u FROM unnest(keys) AS u ORDER BY ds_block_key(u) COLLATE \"C\")) AS ordered FROM sync_state_blocks WHERE sync_id = 7",
    );
    expect(rows[0].ordered).toBe(true);
    expect(Object.keys(await statesOf(7, keys)).sort()).toEqual([...keys].sort());
    // A fingerprint that is not an md5 in hex leaves it to rows.
    expect(await withTransaction(pgPool(), (client) => writeStateBlocks(client, 4, RUN, ["b"], ["not hex"], ["success"]))).toEqual([0]);
  });
});
