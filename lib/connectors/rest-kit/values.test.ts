// The REST kit's value rules (values.ts): what a SaaS number field gets for each kind of value the
// value model carries, and that every other field gets the value unchanged.
import { describe, expect, it } from "vitest";
import { ConnectorError } from "../shared/errors";
import { JsonNumber } from "../shared/values";
import type { Row, Stream } from "../types";
import { exactNumber, isNumberField, restRecord } from "./values";

const stream: Stream = {
  name: "contacts",
  url: "",
  batch_support: true,
  batch_size: 10,
  request_method: "POST",
  json_schema: {
    type: "object",
    properties: {
      n: { type: ["number", "string", "null"] },
      i: { type: ["integer", "null"] },
      text: { type: ["string", "null"] },
      cell: { type: ["string", "number", "boolean", "null"] },
    },
  },
};

const through = (payload: Row) => restRecord({ key: "1", action: "upsert", payload }, stream, "Vendor").payload;
const refusal = (payload: Row) => {
  try {
    through(payload);
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorError);
    return (err as Error).message;
  }
  throw new Error("not refused");
};

describe("REST kit values", () => {
  it("tells number fields from others by the stream's schema", () => {
    expect([["number"], ["number", "string", "null"], "integer", ["integer", "null"]].map((type) => isNumberField({ type }))).toEqual([true, true, true, true]);
    expect([["string", "null"], ["string", "number", "boolean", "null"], ["array", "null"], undefined].map((type) => isNumberField(type === undefined ? undefined : { type }))).toEqual([false, false, false, false]);
  });

  it("reads a decimal text as a number only when the number is that very value", () => {
    expect(["12.50", "0.0000000001", "-32768", "9007199254740991", "1e3", "-0", "00012.5000"].map(exactNumber)).toEqual([12.5, 1e-10, -32768, 9007199254740991, 1000, -0, 12.5]);
    expect(["9007199254740993", "9223372036854775807", "9999999999999999999999999999.9999999999", "0.1000000000000000055511151231257827"].map(exactNumber)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("sends exact text into a number field as the same number, and refuses what a number would change", () => {
    expect(through({ n: "12.50", i: "-9007199254740991", text: "12.50" })).toEqual({ n: 12.5, i: -9007199254740991, text: "12.50" });
    // A number inside JSON (a jsonb scalar) and its marker, as records store it.
    expect(through({ n: new JsonNumber("1.50"), i: JSON.parse(JSON.stringify(new JsonNumber("7"))) as string })).toEqual({ n: 1.5, i: 7 });
    expect(refusal({ n: "9223372036854775807" })).toBe(
      'Column "n" holds 9223372036854775807, which Vendor cannot hold exactly in a number field (it would become 9223372036854776000); map it to a text field, or round it in the model.',
    );
    expect(refusal({ i: "-9999999999999999999999999999.9999999999" })).toMatch(/^Column "i" holds -9999999999999999999999999999\.9999999999, which Vendor cannot hold exactly in a number field \(it would become -1e\+28\)/);
    for (const text of ["NaN", "Infinity", "-Infinity"]) {
      expect(refusal({ n: text })).toBe(`Column "n" holds ${text}, which Vendor cannot hold in a number field (no NaN or infinity there); map it to a text field or filter it out in the model.`);
    }
  });

  it("leaves everything else as it is: NULLs, numbers, words in number fields, and every value of other fields", () => {
    const payload = { n: null, i: 5, text: "NaN", cell: "9223372036854775807", other: "1 year 2 mons", doc: { big: new JsonNumber("12345678901234567890") } };
    expect(through(payload)).toEqual(payload);
    expect(through({ n: "", i: "abc" })).toEqual({ n: "", i: "abc" });
    const record = { key: "1", action: "upsert" as const, payload: { text: "x" } };
    expect(restRecord(record, stream, "Vendor")).toBe(record);
    expect(restRecord({ ...record, payload: { n: "1.5" } }, { ...stream, json_schema: {} }, "Vendor").payload).toEqual({ n: "1.5" });
  });
});
