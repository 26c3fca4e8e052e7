import { describe, expect, it } from "vitest";
import { toJsonColumn } from "./json";

describe("toJsonColumn", () => {
  it("keeps plain data as it is and drops undefined members, as the database would", () => {
    expect(toJsonColumn({ a: 1, b: [true, "x", null], c: { d: undefined, e: 2 } })).toEqual({ a: 1, b: [true, "x", null], c: { e: 2 } });
  });
});
