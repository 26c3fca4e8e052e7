// The value model's JSON rules: numbers inside JSON kept exactly, NaN and the infinities as text,
// and a marker that can never turn into anything but a number.
import { describe, expect, it } from "vitest";
import { exactJson, floatValue, JsonNumber, parseJsonExact, scalarText } from "./values";

describe("parseJsonExact and exactJson", () => {
  it("round-trips every number as written, where JSON.parse would bend it", () => {
    for (const text of [
      '{"big":12345678901234567890,"dec":1.50,"neg":-0,"e":1e-7,"E":2E+3,"z":0.0,"ok":[1,0.1,-2.5,null,true,"1.50"]}',
      "[9007199254740993,-9223372036854775808,123456789.123456789]",
      "12345678901234567890",
      '"12345678901234567890"',
      '{"s":"a \\" 1.50 \\\\","t":"é 1e3"}',
    ]) {
      expect(exactJson(parseJsonExact(text))).toBe(text);
    }
  });

  it("parses documents with only exact numbers as JSON.parse does (plain values, no wrappers)", () => {
    const text = '{"a":[1,2.5,-3,null],"b":{"c":"1.50"},"d":true}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it("keeps a bent number as a JsonNumber that templates print as written", () => {
    const value = parseJsonExact('{"n":1.50}') as { n: JsonNumber };
    expect(value.n).toBeInstanceOf(JsonNumber);
    expect(String(value.n)).toBe("1.50");
    expect(scalarText(value.n)).toBe("1.50");
    // Stored (records, plans) as a marker string; written as the number by exactJson.
    const stored = JSON.parse(JSON.stringify(value)) as unknown;
    expect(exactJson(stored)).toBe('{"n":1.50}');
  });

  it("writes only a valid number from a marker: a string shaped like one cannot break the JSON", () => {
    const hostile = { a: '\u0000ds:n:1,"admin":true', b: "\u0000ds:n:12" };
    const json = exactJson(hostile);
    expect(JSON.parse(json)).toEqual({ a: '\u0000ds:n:1,"admin":true', b: 12 });
  });
});

describe("floats", () => {
  it("travel as numbers when finite, else as the text databases read back", () => {
    expect([floatValue(0.1), floatValue(NaN), floatValue(Infinity), floatValue(-Infinity)]).toEqual([0.1, "NaN", "Infinity", "-Infinity"]);
    expect(exactJson({ x: floatValue(NaN) })).toBe('{"x":"NaN"}');
    expect(scalarText(-Infinity)).toBe("-Infinity");
  });
});
