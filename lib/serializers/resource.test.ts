// iso() remembers the last instant it formatted: repeated, changed and invalid dates still answer
// exactly what toISOString does.
import { describe, expect, it } from "vitest";
import { iso } from "./resource";

describe("iso", () => {
  it("formats every date as toISOString does, repeated or not", () => {
    const times = [0, 1_795_809_128_553, 1_795_809_128_553, -62_135_596_800_000, 1_795_809_128_554, 0];
    for (const t of times) expect(iso(new Date(t))).toBe(new Date(t).toISOString());
    const shared = new Date(1_000);
    expect(iso(shared)).toBe("1970-01-01T00:00:01.000Z");
    shared.setTime(2_000);
    expect(iso(shared)).toBe("1970-01-01T00:00:02.000Z");
    expect(iso(null)).toBeNull();
  });

  it("throws for an invalid date, each time", () => {
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError);
  });
});
