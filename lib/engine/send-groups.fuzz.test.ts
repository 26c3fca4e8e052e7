// Send groups under the read loop's concurrency (forEachBatch, ENGINE_BATCHES_IN_FLIGHT), with the
// real BatchRecorder and CursorTracker over a fake database: batches whose diffs finish in any order,
// sends that take their time, stops that leave rows unsent, and destinations that fail. Whatever
// happens, no batch is recorded twice, none is lost unless the run failed, the counters are those
// of the batches recorded, and the cursor never passes a row that has no outcome recorded.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { itemList, outcomeCount, outcomeList, type Item, type Items, type Outcome } from "./batch";
import { forEachBatch } from "./batch-window";
import { CursorTracker } from "./cursor-tracker";
import { BatchRecorder, type BatchToRecord } from "./record-batch";
import { StopSignal, type RunAttempt } from "./run-attempt";
import { zeroCounters, type RunCounters } from "./run-store";
import { SendGroups, type GroupedBatch } from "./send-groups";
import { seededBelow } from "@/tests/support/random";

const db = vi.hoisted(() => ({
  /** Outcomes of each committed record, and the cursor values saved, in order. */
  committed: [] as { outcomes: unknown[] }[],
  counters: [] as Record<string, number>[],
  cursor: [] as string[],
}));

vi.mock("./run-store", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./run-store")>()),
  addBatchCounters: async (_db: unknown, _run: number, delta: Record<string, number>) => {
    db.counters.push({ ...delta });
    return { totalRows: 0, successfulRows: 0, failedRows: 0 };
  },
  writeStates: async () => undefined,
  rebaselineStates: async () => undefined,
  setRunStatus: async () => true,
  saveCursor: async (_sync: number, value: string) => void db.cursor.push(value),
}));
vi.mock("./records/write", () => ({
  writeRecordBlocks: async (_client: unknown, _sync: number, _run: number, outcomes: unknown[]) =>
    void db.committed.push({ outcomes }),
}));
vi.mock("./transaction", () => ({
  withTransaction: async (_pool: unknown, fn: (client: unknown) => Promise<unknown>) =>
    fn({ query: async () => ({ rowCount: 1, rows: [] }) }),
}));

const random = seededBelow(7);

/** A few turns of the event loop, a random number of them: diffs and sends finish in any order. */
async function someTurns(): Promise<void> {
  for (let i = random(4); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
}

class FakeAttempt {
  private readonly controller = new AbortController();
  failure: unknown;
  nextSeq = 0;
  delivered = 0;
  readonly pool = {};
  readonly ctx = { run: { id: 1 }, sync: { id: 1, writeMode: "upsert" } };
  readonly timings = { query: 0, diff: 0, load: 0, wait: 0, record: 0 };
  get signal() {
    return this.controller.signal;
  }
  get halted() {
    return this.signal.aborted || this.failure !== undefined;
  }
  fail(err: unknown) {
    if (err instanceof StopSignal || this.signal.reason instanceof StopSignal) return;
    this.failure ??= err;
    if (!this.signal.aborted) this.controller.abort(err);
  }
  stop() {
    if (!this.signal.aborted) this.controller.abort(new StopSignal("shutdown"));
  }
  roundedTimings() {
    return this.timings;
  }
  noteTotals() {}
}

const READ_ROWS = 100;

interface Batch {
  items: Item[];
  rebaselined: Item[];
}

async function* source(batches: Batch[]): AsyncGenerator<Batch> {
  for (const b of batches) {
    await someTurns();
    yield b;
  }
}

beforeEach(() => {
  db.committed.length = 0;
  db.counters.length = 0;
  db.cursor.length = 0;
});

afterEach(() => {
  delete process.env.ENGINE_BATCHES_IN_FLIGHT;
});

describe("SendGroups under concurrency, stops and failures (fuzz)", () => {
  it(
    "records every batch once, counts exactly what it records, and never moves the cursor past a row without an outcome",
    { timeout: 120_000 },
    async () => {
      for (let round = 0; round < 1500; round++) {
        db.committed.length = 0;
        db.counters.length = 0;
        db.cursor.length = 0;
        process.env.ENGINE_BATCHES_IN_FLIGHT = String(1 + random(3));
        const attempt = new FakeAttempt();
        const batches: Batch[] = Array.from({ length: 1 + random(50) }, (_, seq) => {
          const changed = random(8) === 0 ? 5 + random(20) : random(3);
          return {
            items: Array.from({ length: changed }, (_, i) => ({
              key: `${seq}:${i}`,
              fingerprint: "f",
              action: "destination_update" as const,
            })),
            rebaselined:
              random(6) === 0
                ? Array.from({ length: random(8) }, (_, i) => ({
                    key: `${seq}:r${i}`,
                    fingerprint: "f",
                    action: "destination_update" as const,
                  }))
                : [],
          };
        });
        const stopAt = random(3) === 0 ? random(batches.length * 2) : -1;
        const failAt = random(5) === 0 ? random(batches.length * 2) : -1;
        let sends = 0;
        const send = async (batch: Items): Promise<Outcome[]> => {
        const items = itemList(batch);
          if (items.length === 0) return [];
          await someTurns();
          const n = sends++;
          if (n === failAt) throw new Error("the destination went away");
          if (n === stopAt) attempt.stop();
          // A stopped loader sends part of what it was given, or nothing.
          const sent = attempt.halted ? random(items.length + 1) : items.length;
          return items.slice(0, sent).map((item) => ({ item, ok: true }));
        };
        const cursor = new CursorTracker(1);
        const recorded: BatchToRecord[] = [];
        const recorder = new BatchRecorder(attempt as unknown as RunAttempt, { states: "upsert", cursor });
        const record = recorder.record.bind(recorder);
        recorder.record = async (b: BatchToRecord) => {
          recorded.push({ ...b, delta: { ...b.delta } });
          return record(b);
        };
        const groups = new SendGroups(send, recorder, 10);
        const seqs: number[] = [];
        const delta = (): RunCounters => ({
          ...zeroCounters(),
          totalQueryRows: READ_ROWS,
          processedRows: READ_ROWS,
        });
        await forEachBatch(attempt as unknown as RunAttempt, source(batches), async (seq, b) => {
          seqs.push(seq);
          await someTurns();
          const diffed: GroupedBatch = {
            seq,
            items: b.items,
            delta: delta(),
            cursorValue: `c${String(seq).padStart(3, "0")}`,
            rebaselined: b.rebaselined,
          };
          await groups.add(diffed);
        });
        await groups.flush().catch((err: unknown) => attempt.fail(err));
        await cursor.settled();

        const context = `round ${round}: ${batches.length} batches, stop at send ${stopAt}, failure at send ${failAt}`;
        // Each batch read is recorded at most once; all of them unless the run failed.
        const recordedSeqs = recorded
          .flatMap((r) => [...(r.carried ?? []).map((c) => c.seq), r.seq])
          .sort((a, b) => a - b);
        expect(new Set(recordedSeqs).size, context).toBe(recordedSeqs.length);
        if (attempt.failure === undefined)
          expect(recordedSeqs, context).toEqual([...seqs].sort((a, b) => a - b));
        // The counters are the recorded batches' reads, and one per outcome.
        const sum = (k: string) => db.counters.reduce((s, c) => s + c[k], 0);
        expect(sum("totalQueryRows"), context).toBe(recordedSeqs.length * READ_ROWS);
        expect(sum("totalRows"), context).toBe(recorded.reduce((s, r) => s + outcomeCount(r.outcomes), 0));
        // The cursor: every row of every batch up to it has its outcome recorded.
        const answered = new Set(recorded.flatMap((r) => outcomeList(r.outcomes).map((o) => o.item.key)));
        const saved = db.cursor.at(-1);
        const passed = saved === undefined ? -1 : Number(saved.slice(1));
        for (let seq = 0; seq <= passed; seq++) {
          for (const item of batches[seq].items)
            expect(answered.has(item.key), `${context}: batch ${seq} passed without ${item.key}`).toBe(true);
        }
        // ...and it goes as far as that holds for the batches recorded (a stop re-reads no more than it must).
        let reach = -1;
        while (
          reach + 1 < batches.length &&
          recordedSeqs.includes(reach + 1) &&
          batches[reach + 1].items.every((i) => answered.has(i.key))
        )
          reach++;
        expect(passed, context).toBe(reach);
      }
    },
  );
});
