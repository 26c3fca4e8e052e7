import { describe, expect, it } from "vitest";
import type { Item, Outcome } from "./batch";
import type { BatchRecorder, BatchToRecord } from "./record-batch";
import { zeroCounters } from "./run-store";
import { SEND_GROUP_MAX_BATCHES, SendGroups, type DiffedBatch } from "./send-groups";

const item = (key: string): Item => ({ key, json: "{}", fingerprint: "f", action: "destination_update" });

function batch(seq: number, changed: number, read = 100): DiffedBatch {
  const delta = zeroCounters();
  delta.totalQueryRows = read;
  delta.processedRows = read;
  delta.skippedRows = read - changed;
  return { seq, items: Array.from({ length: changed }, (_, i) => item(`${seq}-${i}`)), delta, cursorValue: `c${seq}` };
}

function harness(dueItems: number, stopAfter = Infinity) {
  const sends: number[] = [];
  const records: BatchToRecord[] = [];
  const send = async (items: Item[]): Promise<Outcome[]> => {
    sends.push(items.length);
    return items.slice(0, stopAfter).map((i) => ({ item: i, ok: true }));
  };
  const recorder = { record: async (b: BatchToRecord) => void records.push(b) } as unknown as BatchRecorder;
  return { groups: new SendGroups(send, recorder, dueItems), sends, records };
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

  it("marks a group a stop left partly unsent incomplete, so the cursor passes none of its batches", async () => {
    const { groups, records } = harness(10, 4);
    await groups.add(batch(0, 3));
    await groups.add(batch(1, 8));
    expect(records).toHaveLength(1);
    expect(records[0].outcomes).toHaveLength(4);
    expect(records[0].complete).toBe(false);
  });
});
