// Tries to break the block reader (pageHeadsQuery/readWindow/readRecord) with random runs: blocks of random
// sizes (one-record legacy blocks with their old ids among them, blocks of 1000, the rest), random
// outcomes and actions, and keys that need the key line's escape or sit next to it (newlines, a
// leading double quote, empty, unicode, \r, tabs). Every page, keyset page, total and detail is held
// to a brute-force filter over the records as they were written.
import { beforeAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { pgPool, prisma } from "@/lib/db/client";
import { linesText } from "@/lib/db/pg-wire/binary-copy-in";
import { NotFound } from "@/lib/errors";
import type { SyncRecordAction } from "@/lib/generated/prisma/client";
import { parsePage } from "@/lib/http/pagination";
import type { Outcome } from "@/lib/engine/batch";
import { recordBlocks } from "@/lib/engine/records/write";
import { resetCountersForRetry } from "@/lib/engine/run-store";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { allRecords, seedRecords, type SeedRecord } from "@/tests/support/record-blocks";
import { bareSync } from "@/tests/support/sync-fixtures";
import { getSyncRecord } from "./record-detail";
import { listSyncRecords } from "./records";
import { seededFraction } from "@/tests/support/random";

useTestDatabase();

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  const next = seededFraction(seed);
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] };
}

const ACTIONS: SyncRecordAction[] = ["destination_insert", "destination_update", "destination_delete"];
const OUTCOMES: SeedRecord["outcome"][] = ["success", "success", "success", "failed", "skipped", "delivered"];
/** Keys that look like line-format syntax, or like each other once escaped. */
const TRICKY_KEYS = ["", '"', '""', '"a"', "a\nb", "\na", "b\n", "\n", "a\rb", "\r", "a\tb", "\t", "ünï ✓", "日本", "🙂", "a\\nb", '"a\\nb"', "x\u2028y", " lead", "tail "];

interface Expected extends SeedRecord {
  id: bigint;
}

let ws: number;
let syncId: number;
const runs: { id: number; expected: Expected[] }[] = [];

/** Legacy one-record blocks, as the migration made them: first_id is the old record id. */
async function legacyBlocks(runId: number, records: SeedRecord[], firstIds: bigint[]): Promise<void> {
  const outcomes: Outcome[] = records.map((r) => ({
    item: { key: r.key, json: r.record === undefined ? undefined : JSON.stringify(r.record), fingerprint: "", action: r.action },
    ok: r.outcome === "success" || r.outcome === "delivered",
    skipped: r.outcome === "skipped" || r.outcome === "delivered" ? true : undefined,
    error: r.error,
    log: r.log,
  }));
  for (let i = 0; i < outcomes.length; i++) {
    const [b] = recordBlocks([outcomes[i]]);
    await pgPool().query(
      "INSERT INTO sync_record_blocks (sync_run_id, first_id, sync_id, size, failed, codes, keys, rows, details) VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8)",
      [runId, firstIds[i].toString(), syncId, b.failed, b.codes, linesText(b.keys), linesText(b.rows), b.details],
    );
  }
}

function randomRecords(r: ReturnType<typeof prng>, n: number, tag: string): SeedRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const outcome = r.pick(OUTCOMES);
    const key = r.next() < 0.3 ? r.pick(TRICKY_KEYS) : r.next() < 0.5 ? `${tag}${r.int(40)}` : `${tag}${i}`;
    return {
      key,
      record: r.next() < 0.1 ? undefined : { id: i, tag, text: r.pick(TRICKY_KEYS), n: r.int(1000) },
      outcome,
      action: r.pick(ACTIONS),
      error: outcome === "failed" ? `failed ${i}\n"line two"\r\t${r.pick(TRICKY_KEYS)}` : outcome === "delivered" ? "Already delivered with idempotency key x" : undefined,
      log: outcome === "failed" ? { request: { line: `POST ${i}` }, response: { line: `HTTP 500\n${i}` }, level: "error" } : undefined,
    };
  });
}

beforeAll(async () => {
  ws = await newWorkspace();
  const bare = await bareSync(ws);
  syncId = bare.sync.id;
  // The detail redacts with the connectors' settings: give them real (empty) ones.
  await prisma().connector.updateMany({ where: { id: { in: [bare.source.id, bare.destination.id] } }, data: { configurationEncrypted: encryptJson({}) } });
  const r = prng(20261127);
  const mk = async () =>
    prisma().syncRun.create({ data: { workspaceId: ws, syncId, status: "in_progress", startedAt: new Date() } });
  // Run A: legacy one-record blocks (ids interleaved with run B's), then new blocks of random sizes.
  const a = await mk();
  const b = await mk();
  const legacyA = randomRecords(r, 30, "a");
  const legacyB = randomRecords(r, 30, "b");
  await legacyBlocks(a.id, legacyA, legacyA.map((_, i) => BigInt(1000 + 2 * i)));
  await legacyBlocks(b.id, legacyB, legacyB.map((_, i) => BigInt(1001 + 2 * i)));
  const newA = randomRecords(r, 2700, "a");
  const newB = randomRecords(r, 500, "b");
  for (let at = 0, bAt = 0; at < newA.length; ) {
    const size = r.pick([1, 2, 7, 999, 1000, 1001, 1500, 300]);
    await seedRecords(syncId, a.id, newA.slice(at, at + size), size);
    at += size;
    // Another run's blocks between this run's, in id order.
    const bSize = r.pick([1, 50, 1000]);
    await seedRecords(syncId, b.id, newB.slice(bAt, bAt + bSize), bSize);
    bAt += bSize;
  }
  // Run C: empty.
  const c = await mk();
  for (const [run, written] of [[a, [...legacyA, ...newA]], [b, [...legacyB, ...newB]], [c, []]] as const) {
    const ids = (await allRecords(run.id)).map((x) => x.id);
    runs.push({ id: run.id, expected: written.slice(0, ids.length).map((w, i) => ({ ...w, id: ids[i] })) });
  }
}, 120_000);

const statusOf = (o: SeedRecord["outcome"]) => (o === "delivered" ? "skipped" : o);

function reference(expected: Expected[], filter: ListSyncRecordsQuery, skip: number, take: number) {
  const matching = expected.filter(
    (e) =>
      (!filter.status || statusOf(e.outcome) === filter.status) &&
      (!filter.action || e.action === filter.action) &&
      (filter.primary_key === undefined || e.key === filter.primary_key),
  );
  const after = filter.after_id;
  const rows = after !== undefined ? matching.filter((e) => e.id > after).slice(0, take) : matching.slice(skip, skip + take);
  return { ids: rows.map((e) => e.id), total: matching.length, rows };
}

describe("record blocks, by brute force", () => {
  it("reads back every record as written (keys, rows, outcomes, errors, logs), ids ascending", async () => {
    for (const run of runs) {
      const got = await allRecords(run.id);
      expect(got.length).toBe(run.expected.length);
      got.forEach((g, i) => {
        const e = run.expected[i];
        expect({ key: g.primaryKey, record: g.record, status: g.status, action: g.action, error: g.error, logs: g.logs }, `${i}`).toEqual({
          key: e.key,
          record: e.record ?? null,
          status: statusOf(e.outcome),
          action: e.action,
          error: e.error ?? null,
          logs: e.log ?? null,
        });
        if (i > 0) expect(g.id > got[i - 1].id).toBe(true);
      });
    }
  });

  it("pages, keyset pages and totals like a plain filter, for random filters and windows", async () => {
    const r = prng(7);
    const statuses = [undefined, "success", "failed", "skipped", "pending"] as const;
    for (let n = 0; n < 400; n++) {
      const run = runs[n % runs.length];
      const filter: ListSyncRecordsQuery = {};
      const status = r.pick(statuses);
      if (status) filter.status = status;
      if (r.next() < 0.4) filter.action = r.pick(ACTIONS);
      if (r.next() < 0.3 && run.expected.length) {
        // Filter keys as the API receives them: trimmed, not empty.
        const key = r.next() < 0.8 ? r.pick(run.expected).key : r.pick(TRICKY_KEYS);
        if (key.trim() !== "" && key.trim() === key) filter.primary_key = key;
      }
      if (r.next() < 0.3 && run.expected.length) filter.after_id = r.next() < 0.9 ? r.pick(run.expected).id : BigInt(r.int(3000));
      const perPage = r.pick([1, 2, 7, 25, 100]);
      const pageNo = r.next() < 0.1 ? r.int(100000) + 1 : r.int(Math.ceil((run.expected.length + 1) / perPage) + 2) + 1;
      const page = parsePage(new URLSearchParams(`page=${pageNo}&per_page=${perPage}`));
      const got = await listSyncRecords(ws, syncId, run.id, filter, page);
      const want = reference(run.expected, filter, page.skip, page.take);
      const label = `${n} run ${run.id} ${JSON.stringify(filter, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))} page ${pageNo}/${perPage}`;
      expect({ ids: got.rows.map((x) => x.id), total: got.total }, label).toEqual({ ids: want.ids, total: want.total });
      expect(got.rows.map((x) => x.primaryKey), label).toEqual(want.rows.map((x) => x.key));
      expect(got.rows.every((x) => x.syncRunId === run.id)).toBe(true);
    }
  }, 120_000);

  it("answers pages far past the end with no records and the total, for every kind of filter", async () => {
    const run = runs[0];
    for (const query of ["page=9007199254740991&per_page=100", "page=90071992547409&per_page=100", "page=2147483648&per_page=1"]) {
      for (const filter of [{}, { status: "failed" as const }, { action: "destination_delete" as const }, { primary_key: run.expected[5].key }]) {
        const page = parsePage(new URLSearchParams(query));
        const got = await listSyncRecords(ws, syncId, run.id, filter, page);
        expect(got.rows, `${query} ${JSON.stringify(filter)}`).toEqual([]);
        expect(got.total).toBe(reference(run.expected, filter, 0, 1).total);
      }
    }
  });

  it("walks a whole run with after_id, whatever the page size, and finds records written meanwhile", async () => {
    const ws2 = ws;
    const run = await prisma().syncRun.create({ data: { workspaceId: ws2, syncId, status: "in_progress", startedAt: new Date() } });
    const r = prng(99);
    const first = randomRecords(r, 1200, "w");
    await seedRecords(syncId, run.id, first, 1000);
    const seen: bigint[] = [];
    let after: bigint | undefined;
    let written = false;
    for (;;) {
      const got = await listSyncRecords(ws2, syncId, run.id, after === undefined ? {} : { after_id: after }, parsePage(new URLSearchParams("per_page=100")));
      if (got.rows.length === 0) break;
      seen.push(...got.rows.map((x) => x.id));
      after = got.rows[got.rows.length - 1].id;
      if (!written && seen.length >= 600) {
        await seedRecords(syncId, run.id, randomRecords(r, 1500, "w2"), 700);
        written = true;
      }
    }
    expect(seen).toEqual((await allRecords(run.id)).map((x) => x.id));
    expect(seen.length).toBe(2700);
  }, 60_000);

  it("opens every record by id, and 404s ids past a block's size, another run's, and out of range", async () => {
    const [a, b] = runs;
    const all = await allRecords(a.id);
    for (const rec of all.filter((_, i) => i % 37 === 0 || i < 31)) {
      const detail = await getSyncRecord(ws, syncId, a.id, rec.id);
      expect(detail.record).toEqual(rec);
    }
    const ids = new Set(all.map((x) => x.id.toString()));
    const probes: bigint[] = [BigInt(1), BigInt(999), BigInt(1001), BigInt("9223372036854775807"), BigInt(10) ** BigInt(12) - BigInt(1)];
    // Past the end of each block of A, and the ids of B.
    for (let i = 1; i < all.length; i++) if (all[i].id !== all[i - 1].id + BigInt(1)) probes.push(all[i - 1].id + BigInt(1), all[i].id - BigInt(1));
    probes.push(...(await allRecords(b.id)).map((x) => x.id));
    for (const id of probes) {
      if (ids.has(id.toString())) continue;
      await expect(getSyncRecord(ws, syncId, a.id, id), id.toString()).rejects.toBeInstanceOf(NotFound);
    }
    // Another workspace cannot open them.
    const foreign = await newWorkspace();
    await expect(getSyncRecord(foreign, syncId, a.id, all[0].id)).rejects.toBeInstanceOf(NotFound);
  }, 60_000);

  it("resets a retried run's counters to what the engine counted of its records", async () => {
    for (const run of runs) {
      // As record-batch.ts counts a batch's outcomes: an ok skip (already delivered) is a success.
      const want = { total: 0, ok: 0, failed: 0, skipped: 0 };
      for (const e of run.expected) {
        want.total++;
        if (e.outcome === "success" || e.outcome === "delivered") want.ok++;
        else if (e.outcome === "skipped") want.skipped++;
        else want.failed++;
      }
      expect(await resetCountersForRetry(run.id)).toEqual({ totalRows: want.total, successfulRows: want.ok, failedRows: want.failed });
      const row = await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } });
      expect(row.skippedRows).toBe(want.skipped);
    }
  });
});

describe("texts cut inside a character", () => {
  it("stay readable through the view sync_record_rows, as U+FFFD (what a text column stores)", async () => {
    const run = await prisma().syncRun.create({ data: { workspaceId: ws, syncId, status: "in_progress", startedAt: new Date() } });
    // describeExchange and truncate() cut texts by UTF-16 length: an emoji may lose its second half.
    const cut = "🙂".slice(0, 1);
    await seedRecords(syncId, run.id, [
      { key: `"quoted ${cut}`, action: "destination_insert", outcome: "failed", error: `HTTP 400: ${cut}`, log: { request: { line: "POST /x" }, response: { line: "400", body: `body ${cut}` }, level: "error" } },
      { key: "plain", record: { note: `row ${cut}` }, action: "destination_update", outcome: "success" },
    ]);
    const { rows } = await pgPool().query<{ primary_key: string; error: string | null; body: string | null }>(
      "SELECT primary_key, error, logs -> 'response' ->> 'body' AS body FROM sync_record_rows WHERE sync_run_id = $1 ORDER BY id",
      [run.id],
    );
    expect(rows).toEqual([
      { primary_key: '"quoted \ufffd', error: "HTTP 400: \ufffd", body: "body \ufffd" },
      { primary_key: "plain", error: null, body: null },
    ]);
    const [failed] = await allRecords(run.id);
    expect([failed.primaryKey, failed.error]).toEqual(['"quoted \ufffd', "HTTP 400: \ufffd"]);
  });
});
