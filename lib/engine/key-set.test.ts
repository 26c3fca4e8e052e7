import { describe, expect, it } from "vitest";
import { KeySet } from "./key-set";
import { seededBelow } from "@/tests/support/random";

describe("KeySet", () => {
  it("remembers integer keys in the bitmap and every other key exactly", () => {
    const keys = new KeySet();
    for (const k of ["0", "7", "1000000", "134217727", "134217728", "007", "7.0", "-7", "1e3", "abc", ""]) {
      expect(keys.has(k)).toBe(false);
      keys.add(k);
      expect(keys.has(k)).toBe(true);
    }
    // Lookalikes of stored keys are other keys.
    expect(keys.has("1000")).toBe(false);
    expect(keys.has("70")).toBe(false);
    expect(keys.has("6")).toBe(false);
    expect(keys.has("999999999")).toBe(false);
  });

  it("keeps every non-canonical spelling of an integer apart from the integer", () => {
    const keys = new KeySet();
    keys.add("7");
    keys.add("1234567890");
    for (const k of ["07", "+7", " 7", "7 ", "00", "0x7", "7/", ":7", "٧", "123456789", "12345678901"]) expect(keys.has(k)).toBe(false);
    for (const k of ["07", "+7", "7 ", "00"]) keys.add(k);
    expect(keys.has("07") && keys.has("+7") && keys.has("7 ") && keys.has("00")).toBe(true);
    expect(keys.has("0")).toBe(false);
    expect(keys.has("1234567890")).toBe(true);
  });

  it("behaves exactly as a Set of strings, for random keys near every edge of the bitmap's parsing (fuzz)", () => {
    // Deterministic pseudo-random keys: digits with the odd lookalike character (ASCII neighbours of
    // '0' and '9', non-ASCII digits, sign, space), every length up to past the bitmap's digits, and
    // the integers around 2^27 and 10^9. Any key taken for another (or missed) shows as a difference.
    const random = seededBelow(12345);
    const alphabet = ["0", "1", "2", "5", "7", "9", "/", ":", "+", "-", " ", "٠", "０", "e", "."];
    const edges = [0, 1, 9, 10, 2 ** 27 - 1, 2 ** 27, 2 ** 27 + 1, 99_999_999, 100_000_000, 999_999_999, 1_000_000_000, 2 ** 31, 2 ** 32];
    const keyAt = (): string => {
      if (random(4) === 0) {
        const k = String(edges[random(edges.length)]);
        return random(3) === 0 ? `0${k}` : k;
      }
      const length = random(12);
      let k = "";
      for (let i = 0; i < length; i++) k += random(5) === 0 ? alphabet[random(alphabet.length)] : String(random(10));
      return k;
    };
    const keys = new KeySet();
    const model = new Set<string>();
    for (let i = 0; i < 200_000; i++) {
      const k = keyAt();
      if (keys.has(k) !== model.has(k)) throw new Error(`has(${JSON.stringify(k)}) = ${keys.has(k)}, a Set says ${model.has(k)}`);
      if (random(2) === 0) {
        keys.add(k);
        model.add(k);
      }
    }
    expect(model.size).toBeGreaterThan(10_000);
  });

  it("holds a million ids, and grows past its first size", () => {
    const keys = new KeySet();
    for (let i = 0; i < 1_000_000; i += 2) keys.add(String(i));
    let found = 0;
    for (let i = 0; i < 1_000_000; i++) if (keys.has(String(i))) found++;
    expect(found).toBe(500_000);
    expect(keys.has("1")).toBe(false);
    expect(keys.has("999998")).toBe(true);
  });
});
