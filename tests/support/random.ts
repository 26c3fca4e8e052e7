// A small seeded generator (mulberry32) for the property and fuzz tests, so a failure repeats with
// its seed.

/** The next unsigned 32-bit integer of the sequence that starts at `seed`, at each call. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** A number in [0, 1) at each call, from mulberry32(seed). */
export function seededFraction(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/** An integer in [0, n) at each call, from mulberry32(seed). */
export function seededBelow(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => next() % n;
}
