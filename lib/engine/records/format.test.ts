// The block format's lines and codes round-trip, whatever a key, row or error holds.
import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  ALL_CODES,
  codesOtherThan,
  decodeCode,
  detailsLine,
  detailsOfLine,
  keyLine,
  keyOfLine,
  matchingCodes,
  OUTCOMES,
  outcomeCode,
  rowLine,
  rowOfLine,
} from "./format";

describe("record block format", () => {
  it("gives every (outcome, action) its own letter, decoded back to the status shown", () => {
    const letters = OUTCOMES.flatMap((o) => ACTIONS.map((a) => outcomeCode(o, a)));
    expect(new Set(letters).size).toBe(15);
    expect(letters.join("")).toBe(ALL_CODES);
    expect(decodeCode(outcomeCode("delivered", "destination_update"))).toEqual({ status: "skipped", action: "destination_update", outcome: "delivered" });
    expect(() => decodeCode("Z")).toThrow(/Unknown record code/);
  });

  it("matches filters and counts outcomes by letter", () => {
    const skipped = matchingCodes({ status: "skipped" });
    expect([...skipped].map((c) => decodeCode(c).outcome).sort()).toEqual(["delivered", "delivered", "delivered", "skipped", "skipped", "skipped"]);
    expect(matchingCodes({ status: "failed", action: "destination_delete" })).toBe(outcomeCode("failed", "destination_delete"));
    expect(matchingCodes({})).toBe(ALL_CODES);
    const kept = [...ALL_CODES].filter((c) => !codesOtherThan(["success", "delivered"]).includes(c));
    expect(kept.map((c) => decodeCode(c).outcome)).toEqual(["success", "success", "success", "delivered", "delivered", "delivered"]);
  });

  it("keeps a key on one line, as it is unless it would break the line or read as JSON", () => {
    for (const key of ["42", "", "a\tb", "back\\slash", "two\nlines", '"quoted"', '"', "ünï ✓", "\r"]) {
      const line = keyLine(key);
      expect(line.includes("\n")).toBe(false);
      expect(keyOfLine(line)).toBe(key);
    }
    expect(keyLine("42")).toBe("42");
  });

  it("keeps rows and details on one line", () => {
    expect(rowOfLine(rowLine('{"a":"x\\ny"}', undefined))).toEqual({ json: '{"a":"x\\ny"}' });
    expect(rowOfLine(rowLine(undefined, "1\tAda\t\\N"))).toEqual({ copyLine: "1\tAda\t\\N" });
    expect(rowOfLine(rowLine(undefined, undefined))).toBeNull();
    const log = { request: { line: "POST /x", body: { note: "multi\nline" } }, response: { line: "500" }, level: "error" as const };
    const line = detailsLine("failed:\nbadly", log);
    expect(line.includes("\n")).toBe(false);
    expect(detailsOfLine(line)).toEqual({ error: "failed:\nbadly", log });
    expect(detailsLine(undefined, undefined)).toBe("");
    expect(detailsOfLine("")).toEqual({ error: null, log: null });
  });

  it("writes a lone surrogate (a text cut inside an emoji) as U+FFFD, never as a \\ud escape PostgreSQL's JSON refuses", () => {
    const cut = "🙂".slice(0, 1);
    expect(keyOfLine(keyLine(`"a${cut}`))).toBe('"a\ufffd');
    expect(keyOfLine(keyLine(`two\nlines 🙂`))).toBe("two\nlines 🙂");
    const line = detailsLine(`HTTP 400: ${cut}`, { request: { line: "POST" }, response: { line: "400", body: `x${"🙂".slice(1)}` }, level: "error" });
    expect(line).not.toMatch(/\\ud[89a-f]/i);
    expect(detailsOfLine(line)).toMatchObject({ error: "HTTP 400: \ufffd", log: { response: { body: "x\ufffd" } } });
    // A backslash of the text itself is kept as it is.
    expect(detailsOfLine(detailsLine("\\ud83d 🙂", undefined)).error).toBe("\\ud83d 🙂");
  });
});
