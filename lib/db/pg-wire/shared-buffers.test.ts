// The pool of shared buffers a pass-through run's batches reuse: a buffer comes back zeroed, is kept
// once however often it is given back, never when forgotten, and a batch given back cannot be read.
import { afterEach, describe, expect, it, vi } from "vitest";
import { heldBatch } from "@/tests/support/held-lines";
import { LineBatch } from "./line-batch";
import { SharedBuffers, sharedBuffers } from "./shared-buffers";

afterEach(() => {
  vi.useRealTimers();
});

describe("SharedBuffers", () => {
  it("lends a zeroed view of a shared buffer, and the same buffer again once it is given back, zeroed", () => {
    const pool = new SharedBuffers();
    const first = pool.take(100_000);
    expect(first.length).toBe(100_000);
    expect(first.buffer).toBeInstanceOf(SharedArrayBuffer);
    first.fill("secret of another workspace");
    pool.give(first);
    const second = pool.take(90_000);
    expect(second.buffer).toBe(first.buffer);
    expect(second.length).toBe(90_000);
    // The whole shared buffer, not only the view: nothing of the first batch is left anywhere in it.
    expect(Buffer.from(second.buffer).every((b) => b === 0)).toBe(true);
  });

  it("keeps a buffer given back twice once, and none forgotten or not its own", () => {
    const pool = new SharedBuffers();
    const a = pool.take(1000);
    pool.give(a);
    pool.give(a);
    expect(pool.keptCount()).toBe(1);
    const b = pool.take(1000);
    const c = pool.take(1000);
    expect(b.buffer).toBe(a.buffer);
    expect(c.buffer).not.toBe(a.buffer);
    pool.forget(c);
    pool.give(c);
    pool.give(Buffer.alloc(1000));
    pool.give(Buffer.from(new SharedArrayBuffer(65536)));
    expect(pool.keptCount()).toBe(0);
  });

  it("keeps a dozen buffers a size, and drops them all once none was taken for a while", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
    const pool = new SharedBuffers();
    const taken = Array.from({ length: 20 }, () => pool.take(200_000));
    for (const b of taken) pool.give(b);
    expect(pool.keptCount()).toBe(12);
    vi.advanceTimersByTime(5_000);
    pool.give(pool.take(200_000));
    vi.advanceTimersByTime(6_000);
    expect(pool.keptCount()).toBe(12);
    vi.advanceTimersByTime(10_000);
    expect(pool.keptCount()).toBe(0);
  });

  it("keeps at most 64 MiB of every size together, and never a buffer past 16 MiB, which is made to measure", () => {
    const MiB = 1024 * 1024;
    const pool = new SharedBuffers();
    const taken = Array.from({ length: 5 }, () => pool.take(16 * MiB));
    for (const b of taken) pool.give(b);
    expect(pool.keptCount()).toBe(4);
    expect(pool.keptSize()).toBe(64 * MiB);
    // A smaller one is not kept either once the total is reached; taking one back makes room.
    pool.give(pool.take(100_000));
    expect(pool.keptCount()).toBe(4);
    const reused = pool.take(10 * MiB);
    expect(pool.keptSize()).toBe(48 * MiB);
    pool.give(reused);
    expect(pool.keptSize()).toBe(64 * MiB);
    const large = pool.take(20 * MiB + 1);
    expect(large.buffer.byteLength).toBe(20 * MiB + 1);
    pool.give(large);
    expect(pool.keptCount()).toBe(4);
  });
});

describe("a joined batch's buffers", () => {
  const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${i}\t${prefix}-${i}`);

  it("go back to the pool on release, and the batch can no longer be read", () => {
    const joined = LineBatch.join([{ batch: heldBatch(lines("first", 3000), 500), from: 0, to: 3000 }]);
    // Its messages and their places, both in shared buffers.
    const buffers = [joined.bytes?.chunks[0].buffer, joined.bytes?.starts.buffer];
    expect(buffers[0]).toBeInstanceOf(SharedArrayBuffer);
    expect(buffers[1]).toBeInstanceOf(SharedArrayBuffer);
    joined.release();
    expect(() => joined.line(0)).toThrow(/after the batch was recorded/);
    expect(() => joined.fields(0)).toThrow(/after the batch was recorded/);
    joined.release();
    const next = LineBatch.join([{ batch: heldBatch(lines("next", 10), 5), from: 0, to: 10 }]);
    expect(buffers).toContain(next.bytes?.chunks[0].buffer);
    expect([...next]).toEqual(lines("next", 10));
    // Past the next batch's own bytes, zeros: none of the first batch's lines.
    const whole = Buffer.from(next.bytes?.chunks[0].buffer as SharedArrayBuffer);
    expect(whole.subarray(next.bytes?.chunks[0].length).every((b) => b === 0)).toBe(true);
    next.release();
  });

  it("are never reused once pinned (a write that failed may still read them), and the batch stays readable", () => {
    const joined = LineBatch.join([{ batch: heldBatch(lines("pinned", 3000), 500), from: 0, to: 3000 }]);
    const buffer = joined.bytes?.chunks[0].buffer;
    joined.pin();
    joined.release();
    expect(joined.line(2999)).toBe("2999\tpinned-2999");
    const next = LineBatch.join([{ batch: heldBatch(lines("next", 3000), 500), from: 0, to: 3000 }]);
    expect(next.bytes?.chunks[0].buffer).not.toBe(buffer);
    next.release();
    expect(sharedBuffers.keptCount()).toBeGreaterThan(0);
  });
});
