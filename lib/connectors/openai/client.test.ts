// The retry delay and the request spacer, with a fake clock (no waiting on the wall clock).
import { describe, expect, it } from "vitest";
import { RequestSpacer, retryDelayMs } from "./client";

describe("retryDelayMs", () => {
  it("takes Retry-After when the server sent one, else backs off exponentially up to 30 s", () => {
    expect(retryDelayMs({ retryAfterSeconds: 7 }, 0)).toBe(7000);
    expect(retryDelayMs({ retryAfterSeconds: 0 }, 3)).toBe(0);
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs({}, attempt))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs({}, 10)).toBe(30_000);
  });
});

describe("RequestSpacer", () => {
  it("spaces request starts to the rate per minute, per key, queueing concurrent callers", async () => {
    let now = 1_000_000;
    const waits: number[] = [];
    const spacer = new RequestSpacer(
      () => now,
      async (ms) => {
        waits.push(ms);
      },
    );
    // 120 a minute: one every 500 ms. Three callers at once wait 0, 500 and 1000 ms.
    expect(await Promise.all([spacer.acquire("a", 120), spacer.acquire("a", 120), spacer.acquire("a", 120)])).toEqual([0, 500, 1000]);
    // Another key has its own budget; no limit means no wait.
    expect(await spacer.acquire("b", 120)).toBe(0);
    expect(await spacer.acquire("a", 0)).toBe(0);
    // After the reserved slots have passed, the next call goes at once.
    now += 2000;
    expect(await spacer.acquire("a", 120)).toBe(0);
    expect(waits).toEqual([0, 500, 1000, 0, 0]);
  });
});
