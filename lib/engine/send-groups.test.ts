import { describe, expect, it } from "vitest";
import { itemList, type Item, type Items, type Outcome } from "./batch";
import type { CursorTracker } from "./cursor-tracker";
import { BatchRecorder, type BatchToRecord } from "./record-batch";
import type { RunAttempt } from "./run-attempt";
import { zeroCounters } from "./run-store";
import { SEND_GROUP_MAX_BATCHES, SendGroups, type GroupedBatch } from "./send-groups";

const item = (key: string): Item => ({ key, json: "{}", fingerprint: "f", action: "destination_update" });

function batch(seq: number, changed: number, read = 100): GroupedBatch {
  const delta = zeroCounters();
  delta.totalQueryRows = read;
  delta.processedRows = read;
  delta.skippedRows = read - changed;
  return { seq, items: Array.from({ length: changed }, (_, i) => item(`${seq}-${i}`)), delta, cursorValue: `c${seq}` };
}

function harness(dueItems: number, stopAfter = Infinity) {
  const sends: number[] = [];
  const records: BatchToRecord[] = [];
  const send = async (batch: Items): Promise<Outcome[]> => {
    const items = itemList(batch);
    sends.push(items.length);
    return items.slice(0, stopAfter).map((i) => ({ item: i, ok: true }));
  };
  const recorder = { record: async (b: BatchToRecord) => void records.push(b) } as unknown as BatchRecorder;
  return { groups: new SendGroups(send, recorder, dueItems), sends, records };
}

/** An attempt whose database takes counters only (a record without outcomes writes nothing else). */
function fakeAttempt(): RunAttempt {
  const pool = { query: async () => ({ rows: [{ total_rows: 0, successful_rows: 0, failed_rows: 0 }], rowCount: 0 }) };
  return {
    pool,
    ctx: { run: { id: 1 }, sync: { id: 1, writeMode: "upsert" } },
    timings: { query: 0, diff: 0, load: 0, wait: 0, record: 0 },
    roundedTimings: () => ({ query: 0, diff: 0, load: 0, wait: 0, record: 0 }),
    noteTotals: () => undefined,
    delivered: 0,
  } as unknown as RunAttempt;
}

describe("SendGroups", () => {
  it("sends the few changed rows of many batches as one group, counted once and passing every batch's cursor", async () => {
    const { groups, sends, records } = harness(50);
    for (let seq = 0; seq < 10; seq++) await groups.add(batch(seq, 3));
    expect(sends).toEqual([]);
    await groups.flush();
    expect(sends).toEqual([30]);
    expect(records).toHaveLength(1);
    const [r] = records;
    expect(r.outcomes).toHaveLength(30);
    expect(r.delta.totalQueryRows).toBe(1000);
    expect(r.delta.skippedRows).toBe(970);
    expect(r.complete).toBe(true);
    // The cursor learns of all ten batches: the nine carried, then the last.
    expect([...(r.carried ?? []).map((c) => c.seq), r.seq]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(r.cursorValue).toBe("c9");
    // Nothing left: a second flush records nothing.
    await groups.flush();
    expect(records).toHaveLength(1);
  });

  it("sends a batch with many rows at once, with whatever waited before it", async () => {
    const { groups, sends, records } = harness(50);
    await groups.add(batch(0, 2));
    await groups.add(batch(1, 80));
    expect(sends).toEqual([82]);
    expect(records.map((r) => [r.seq, r.carried?.map((c) => c.seq)])).toEqual([[1, [0]]]);
    await groups.add(batch(2, 60));
    expect(sends).toEqual([82, 60]);
    expect(records[1].carried).toEqual([]);
  });

  it("holds at most SEND_GROUP_MAX_BATCHES batches, changed rows or not", async () => {
    const { groups, records } = harness(1_000_000);
    for (let seq = 0; seq < SEND_GROUP_MAX_BATCHES * 2 + 1; seq++) await groups.add(batch(seq, 0));
    expect(records).toHaveLength(2);
    expect(records.every((r) => (r.carried?.length ?? 0) + 1 === SEND_GROUP_MAX_BATCHES)).toBe(true);
    await groups.flush();
    expect(records).toHaveLength(3);
    expect(records[2].seq).toBe(SEND_GROUP_MAX_BATCHES * 2);
  });

  it("marks incomplete the batches of a group whose rows a stop left partly unsent, and only those", async () => {
    const { groups, records } = harness(10, 4);
    await groups.add(batch(0, 3));
    await groups.add(batch(1, 8));
    expect(records).toHaveLength(1);
    expect(records[0].outcomes).toHaveLength(4);
    // The first batch's 3 rows were all sent (and are recorded here): it is complete, as it would be alone.
    expect(records[0].carried).toEqual([{ seq: 0, cursorValue: "c0", complete: true }]);
    expect(records[0].complete).toBe(false);
  });

  it("lets the cursor pass the group's batches a stop left nothing unsent of, and only those", async () => {
    // A stop before anything went out: the batches without rows to send are done, the others are not.
    const { groups, records } = harness(50, 0);
    for (const [seq, changed] of [
      [0, 0],
      [1, 0],
      [2, 3],
      [3, 0],
      [4, 2],
    ])
      await groups.add(batch(seq, changed));
    await groups.flush();
    const [r] = records;
    expect(r.outcomes).toEqual([]);
    expect([...(r.carried ?? []).map((c) => [c.seq, c.complete]), [r.seq, r.complete]]).toEqual([
      [0, true],
      [1, true],
      [2, false],
      [3, true],
      [4, false],
    ]);
    // Through the recorder: the cursor learns of batches 0, 1 and 3, so it passes 0 and 1 (3 waits behind 2).
    const cursor: [number, string | undefined][] = [];
    const recorder = new BatchRecorder(fakeAttempt(), { states: "upsert", cursor: { recordedBatch: (seq: number, value?: string) => void cursor.push([seq, value]) } as unknown as CursorTracker });
    await recorder.record(r);
    expect(cursor).toEqual([
      [0, "c0"],
      [1, "c1"],
      [3, "c3"],
    ]);
  });

  it("counts rebaselined rows towards a due group: they wait with their parsed rows", async () => {
    const { groups, records } = harness(50);
    for (let seq = 0; seq < 4; seq++) {
      const b = batch(seq, 0);
      b.rebaselined = Array.from({ length: 30 }, (_, i) => item(`${seq}-r${i}`));
      await groups.add(b);
    }
    // 30 + 30 rows held: due at the second batch, and again at the fourth.
    expect(records.map((r) => r.rebaselined?.length)).toEqual([60, 60]);
  });
});
