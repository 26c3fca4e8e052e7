import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { every } from "./every";

describe("every", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A tick that stays in progress until `finish` is called. */
  function slowTicks() {
    const finishers: (() => void)[] = [];
    let started = 0;
    const fn = () => {
      started++;
      return new Promise<void>((resolve) => finishers.push(resolve));
    };
    return { fn, started: () => started, finish: () => finishers.shift()?.() };
  }

  it("runs at once, then every interval, never two ticks at once", async () => {
    const t = slowTicks();
    const loop = every(100, t.fn, () => undefined);
    expect(t.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(350);
    // Still in the first tick: the due ones are skipped, not queued.
    expect(t.started()).toBe(1);
    t.finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(t.started()).toBe(2);
    t.finish();
    await loop.stop();
  });

  it("stop() waits for a tick in progress and starts no other", async () => {
    const t = slowTicks();
    const loop = every(100, t.fn, () => undefined);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(stopped).toBe(false);
    t.finish();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(t.started()).toBe(1);
  });

  it("hands a failed tick to onError and keeps going", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = every(
      100,
      async () => {
        calls++;
        if (calls === 1) throw new Error("boom");
      },
      (err) => errors.push(err),
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toHaveLength(1);
    expect(calls).toBe(2);
    await loop.stop();
  });
});
