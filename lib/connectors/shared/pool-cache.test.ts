import { describe, expect, it } from "vitest";
import { PoolCache } from "./pool-cache";

function fakePool() {
  const pool = { ended: 0, end: async () => void pool.ended++ };
  return pool;
}

describe("PoolCache", () => {
  it("opens one pool per key, however many callers ask at once", async () => {
    const cache = new PoolCache<{ pool: ReturnType<typeof fakePool> }>();
    let opened = 0;
    const open = async () => ({ pool: (opened++, fakePool()) });
    const [a, b] = await Promise.all([cache.get("k", open), cache.get("k", open)]);
    expect(a).toBe(b);
    expect(await cache.get("other", open)).not.toBe(a);
    expect(opened).toBe(2);
  });

  it("forgets a failed open, so the next call tries again", async () => {
    const cache = new PoolCache<{ pool: ReturnType<typeof fakePool> }>();
    await expect(cache.get("k", () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    const entry = await cache.get("k", async () => ({ pool: fakePool() }));
    expect(entry.pool.ended).toBe(0);
  });

  it("close ends the pool and the next get opens a fresh one", async () => {
    const cache = new PoolCache<{ pool: ReturnType<typeof fakePool> }>();
    const first = await cache.get("k", async () => ({ pool: fakePool() }));
    await cache.close("k");
    expect(first.pool.ended).toBe(1);
    const second = await cache.get("k", async () => ({ pool: fakePool() }));
    expect(second).not.toBe(first);
    await cache.close("missing"); // nothing to end
  });
});
