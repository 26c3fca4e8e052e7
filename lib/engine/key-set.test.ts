import { describe, expect, it } from "vitest";
import { KeySet } from "./key-set";

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
