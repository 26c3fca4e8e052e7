import { describe, expect, it } from "vitest";
import { compileRegex, expandedSize, expandReplacement, regexReplace, REGEX_SIZE_LIMIT, type ReplaceBudget } from "./regex-replace";

const unbounded: ReplaceBudget = { tick: () => undefined, charge: () => undefined };
const replace = (value: string, pattern: string, replacement: string, flags?: string) =>
  regexReplace(value, compileRegex(pattern, flags), replacement, unbounded);

describe("regex_replace on RE2", () => {
  it("agrees with JavaScript's global replace on patterns both engines run", () => {
    const cases: [string, string, string, string?][] = [
      ["a1b22", "[0-9]", "#"],
      ["AbaB", "ab", "-", "i"],
      ["x1\nx2", "^x", "y", "m"],
      ["hello world", "(\\w+) (\\w+)", "$2 $1 $$ $0 $& $3 $10 $<x>"],
      ["hello world", "(?<first>\\w+) (\\w+)", "$<first>|$<none>|$2|$`|$'"],
      ["abc", "x*", "-"],
      ["café", "\\u00e9", "e"],
      ["2024-03-05", "(\\d+)-(\\d+)-(\\d+)", "$3.$2.$1"],
      ["aaa", "a(b)?", "[$1]"],
      ["tail$", "\\$", "$"],
    ];
    for (const [value, pattern, replacement, flags] of cases) {
      const native = value.replace(new RegExp(pattern, `g${flags ?? ""}`), replacement);
      expect(replace(value, pattern, replacement, flags), `${pattern} → ${replacement}`).toBe(native);
    }
  });

  it("matches whole characters where JavaScript splits surrogate pairs", () => {
    expect(replace("a😀b", "x*", "-")).toBe("-a-😀-b-");
  });

  it("keeps the Ruby-like x flag", () => {
    expect(replace("a12b3", "[0-9] + # digits", "N", "x")).toBe("aNbN");
    expect(replace("a b", "[ ]", "_", "x")).toBe("a_b");
  });

  it("names what RE2 cannot run", () => {
    expect(() => compileRegex("(a)\\1", "")).toThrow(/uses a backreference .* which RE2 patterns do not support/);
    expect(() => compileRegex("(?<x>a)\\k<x>", "")).toThrow(/backreference/);
    expect(() => compileRegex("a(?=b)", "")).toThrow(/uses lookahead or lookbehind/);
    expect(() => compileRegex("(?<!a)b", "")).toThrow(/uses lookahead or lookbehind/);
    expect(() => compileRegex("(", "")).toThrow(/invalid pattern "\(": missing closing \)/);
    expect(() => compileRegex("a", "q")).toThrow(/unknown flag "q"/);
  });

  it("refuses patterns whose repetitions expand too far before compiling them", () => {
    expect(expandedSize("a{1000}")).toBe(1000);
    expect(expandedSize("(ab){3}c")).toBeGreaterThanOrEqual(7);
    expect(expandedSize("[{}]{2}\\x{41}{3}\\p{L}")).toBe(6);
    // 4,900 characters that RE2 would compile into 700,000 instructions (seconds, hundreds of MB).
    expect(() => compileRegex("a{1000}".repeat(700), "")).toThrow(/too large once its \{n\} repetitions are expanded/);
    expect(expandedSize("a{1000}".repeat(700))).toBeGreaterThan(REGEX_SIZE_LIMIT);
    const email = "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
    expect(replace("me@example.com", email, "ok")).toBe("ok");
  });

  it("charges every replacement and checks the clock between matches", () => {
    let charged = 0;
    let ticks = 0;
    const out = regexReplace("aaaa", compileRegex("a", ""), "bb", { tick: () => void ticks++, charge: (n) => void (charged += n) });
    expect(out).toBe("bbbbbbbb");
    expect(ticks).toBe(4);
    expect(charged).toBe(4 + 8);
    const stop = { tick: () => { throw new Error("time is up"); }, charge: () => undefined };
    expect(() => regexReplace("aaaa", compileRegex("a", ""), "b", stop)).toThrow("time is up");
  });

  it("expands a replacement exactly like String.prototype.replace", () => {
    const match = { text: "bc", index: 1, captures: ["b", undefined] };
    expect(expandReplacement("[$1|$2|$3|$01|$&|$`|$'|$$|$]", match, "abcd")).toBe("[b||$3|b|bc|a|d|$|$]");
  });
});
