import { describe, expect, it } from "vitest";
import { compileMapping, deletePayload, MappingConfigurationError, MappingError, normalizeConfiguration, previewMapping } from "./mapping";
import { compileTemplate, TemplateError } from "./templates";
import { exactJson, parseJsonExact } from "@/lib/connectors/shared/values";
import { syncConfigurationsPayload } from "./configurations";

const row = { id: 7, first_name: "Ada", last_name: "Lovelace", email: "ADA@Example.com", price: "12.50", active: "yes", sku: "A-1" };

describe("mapping", () => {
  it("copies standard columns into dotted paths", () => {
    const m = compileMapping([
      { from: "first_name", to: "name.first", mapping_type: "standard" },
      { from: "last_name", to: "name.last", mapping_type: "standard" },
      { from: "id", to: "external_id", mapping_type: "standard" },
    ]);
    expect(m.map(row)).toEqual({ name: { first: "Ada", last: "Lovelace" }, external_id: 7 });
  });

  it("accepts the older object form", () => {
    expect(normalizeConfiguration({ email: "contact.email" })).toEqual([{ from: "email", to: "contact.email", mapping_type: "standard" }]);
    expect(compileMapping({ email: "contact.email" }).map(row)).toEqual({ contact: { email: "ADA@Example.com" } });
  });

  it("keeps the type of static values and accepts the string form", () => {
    const m = compileMapping([
      { from: 42, to: "n", mapping_type: "static" },
      { from: false, to: "b", mapping_type: "static" },
      { from: null, to: "z", mapping_type: "static" },
      { from: "42", to: "s", mapping_type: "static" },
    ]);
    expect(m.map(row)).toEqual({ n: 42, b: false, z: null, s: "42" });
  });

  it("appends with [] segments, grouping fields of one element", () => {
    const m = compileMapping([
      { from: "sku", to: "items[].sku", mapping_type: "standard" },
      { from: "{{ price | cast: 'number' }}", to: "items[].price", mapping_type: "template" },
      { from: "id", to: "items[].sku", mapping_type: "standard" },
      { from: "email", to: "tags[]", mapping_type: "standard" },
      { from: "sku", to: "tags[]", mapping_type: "standard" },
    ]);
    expect(m.map(row)).toEqual({ items: [{ sku: "A-1", price: 12.5 }, { sku: 7 }], tags: ["ADA@Example.com", "A-1"] });
  });

  it("renders templates with standard and custom filters", () => {
    const m = compileMapping([
      { from: "{{ first_name | upcase }} {{ last_name }}", to: "full", mapping_type: "template" },
      { from: "{{ email | downcase }}", to: "email", mapping_type: "template" },
      { from: "{{ active | cast: 'boolean' }}", to: "active", mapping_type: "template" },
      { from: "{{ id | cast: 'string' }}", to: "id", mapping_type: "template" },
    ]);
    expect(m.map(row)).toEqual({ full: "ADA Lovelace", email: "ada@example.com", active: true, id: "7" });
  });

  it("fails one row with a clear error, not the mapping", () => {
    const m = compileMapping([{ from: "{{ price | cast: 'number' }}", to: "price", mapping_type: "template" }]);
    expect(m.map({ price: "3" })).toEqual({ price: 3 });
    expect(() => m.map({ price: "abc" })).toThrow(MappingError);
    expect(() => m.map({ price: "abc" })).toThrow(/price.*"abc" is not a number/);
  });

  it("rejects unusable configurations up front", () => {
    expect(() => compileMapping([{ from: "{{ a | nosuchfilter }}", to: "x", mapping_type: "template" }])).toThrow(MappingConfigurationError);
    expect(() => compileMapping([{ from: "a", to: "x", mapping_type: "weird" }])).toThrow(/standard, static or template/);
    expect(() => compileMapping([{ from: "a", to: "__proto__.x", mapping_type: "standard" }])).toThrow(MappingConfigurationError);
    expect(() => compileMapping("nope")).toThrow(MappingConfigurationError);
  });

  it("sends the row as is when there is no mapping", () => {
    expect(compileMapping([]).map({ a: 1 })).toEqual({ a: 1 });
    expect(compileMapping(null).identity).toBe(true);
  });

  it("previews a mapping without throwing", () => {
    expect(previewMapping([{ from: "id", to: "x", mapping_type: "standard" }], { id: 1 })).toEqual({ ok: true, payload: { x: 1 } });
    const bad = previewMapping([{ from: "{{ id | cast: 'number' }}", to: "x", mapping_type: "template" }], { id: "z" });
    expect(bad.ok).toBe(false);
  });

  it("builds delete payloads from the primary key mapping", () => {
    const m = compileMapping([{ from: "id", to: "external_id", mapping_type: "standard" }, { from: "email", to: "email", mapping_type: "standard" }]);
    expect(deletePayload(m, "id", "5")).toEqual({ external_id: "5" });
    expect(deletePayload(compileMapping([]), "id", "5")).toEqual({ id: "5" });
  });
});

describe("fields", () => {
  it("say which columns each mapping reads: a template Liquid renders may read any", () => {
    const { fields } = compileMapping([
      { from: "a", to: "a", mapping_type: "standard" },
      { from: "doc.inner", to: "b", mapping_type: "standard" },
      { from: "x", to: "c", mapping_type: "static" },
      { from: "{{ given | downcase }} {{ family }} {{ current_timestamp }}", to: "d", mapping_type: "template" },
      { from: "{% if a %}{{ a }}{% endif %}", to: "e", mapping_type: "template" },
    ]);
    expect(fields.map((f) => [f.to, f.reads])).toEqual([
      ["a", ["a"]],
      ["b", ["doc.inner", "doc"]],
      ["c", []],
      ["d", ["given", "family"]],
      ["e", undefined],
    ]);
    const clock = { now: new Date("2026-01-02T03:04:05Z") };
    const row = { a: null, doc: { inner: 1 }, given: "ADA", family: "l" };
    expect(fields.map((f) => f.value(row, clock))).toEqual([null, 1, "x", "ada l 2026-01-02T03:04:05.000+0000", ""]);
  });
});

describe("templates", () => {
  it("keep a number inside JSON exactly: printed, cast and written as JSON as the source wrote it (issue 33)", () => {
    const row = { doc: parseJsonExact('{"big":12345678901234567890,"dec":1.50}') };
    expect(compileTemplate("id {{ doc.big }}").render(row)).toBe("id 12345678901234567890");
    expect(compileTemplate("{{ doc | json }}").render(row)).toBe('{"big":12345678901234567890,"dec":1.50}');
    expect(compileTemplate("{{ doc.dec | cast: 'string' }}").render(row)).toBe("1.50");
    expect(exactJson(compileTemplate("{{ doc.big | cast: 'number' }}").render(row))).toBe("12345678901234567890");
  });

  const at = new Date("2026-02-24T12:00:00.000Z");

  it("renders now and current_timestamp in UTC with milliseconds", () => {
    expect(compileTemplate("{{ current_timestamp }}").render({}, at)).toBe("2026-02-24T12:00:00.000+0000");
    const now = compileTemplate("{{ 'now' | date: '%Y-%m-%dT%H:%M:%S.%L%z' }}").render({}) as string;
    expect(now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
  });

  it("regex_replace is global and supports i, m, x", () => {
    expect(compileTemplate("{{ v | regex_replace: '[0-9]', '#' }}").render({ v: "a1b22" })).toBe("a#b##");
    expect(compileTemplate("{{ v | regex_replace: 'ab', '-', 'i' }}").render({ v: "AbaB" })).toBe("--");
    expect(compileTemplate("{{ v | regex_replace: '^x', 'y', 'm' }}").render({ v: "x1\nx2" })).toBe("y1\ny2");
    expect(compileTemplate("{{ v | regex_replace: '[0-9] + # digits', 'N', 'x' }}").render({ v: "a12b3" })).toBe("aNbN");
    expect(() => compileTemplate("{{ v | regex_replace: 'a', 'b', 'q' }}").render({ v: "a" })).toThrow(/unknown flag "q"/);
  });

  it("to_datetime parses dates and epochs and formats them", () => {
    expect(compileTemplate("{{ d | to_datetime: '%Y-%m-%d' }}").render({ d: "2024-03-05T10:00:00Z" })).toBe("2024-03-05");
    expect(compileTemplate("{{ d | to_datetime }}").render({ d: 0 })).toBe("1970-01-01T00:00:00.000+0000");
    expect(compileTemplate("{{ d | to_datetime: '%H:%M' }}").render({ d: "2024-03-05 07:08:09" })).toBe("07:08");
    expect(() => compileTemplate("{{ d | to_datetime }}").render({ d: "never" })).toThrow(TemplateError);
  });

  it("cast converts or refuses", () => {
    const t = compileTemplate("{{ v | cast: 'number' }}");
    expect(t.render({ v: "1e3" })).toBe(1000);
    expect(() => t.render({ v: "" })).toThrow(/not a number/);
    expect(() => compileTemplate("{{ v | cast: 'date' }}").render({ v: 1 })).toThrow(/unknown type/);
  });
});

describe("sync configurations payload", () => {
  it("has the documented shape and key order", () => {
    const json = JSON.stringify(syncConfigurationsPayload).replace(/"description":"[^"]*"/g, '"description":"…"');
    expect(json).toBe(
      `{"data":{"configurations":{"catalog_mapping_types":{"standard":"","static":{"string":{"type":"string","description":"…"},"number":{"type":"float","description":"…"},"boolean":{"type":"boolean","description":"…"},"null":{"type":"null","description":"…"}},"template":{"variable":{"current_timestamp":{"type":"datetime","description":"…","value":"{{ 'now' | date: '%Y-%m-%dT%H:%M:%S.%L%z' }}"}},"filter":{"cast":{"description":"…","value":"{{ cast: '<string>' }}"},"regex_replace":{"description":"…","value":"{{ regex_replace : '<[a-zA-Z]>', '<replacement>', '<flags>' }}"}}}}}}}`,
    );
  });
});

describe("null_policy", () => {
  const sparse = { id: 1, email: null, phone: "" };

  it("writes empty values as null by default, and leaves them out with skip", () => {
    const config = [
      { from: "id", to: "id", mapping_type: "standard" },
      { from: "email", to: "email", mapping_type: "standard", null_policy: "skip" },
      { from: "missing", to: "contact.missing", mapping_type: "standard", null_policy: "skip" },
      { from: "{{ email }}", to: "email_text", mapping_type: "template", null_policy: "skip" },
      { from: "phone", to: "phone", mapping_type: "standard", null_policy: "skip" },
      { from: "email", to: "email_or_null", mapping_type: "standard", null_policy: "write" },
    ];
    const m = compileMapping(config);
    expect(m.skipsEmpty).toBe(true);
    // "" from a column is a value (kept); "" from a template is what it renders null as (skipped).
    expect(m.map(sparse)).toEqual({ id: 1, phone: "", email_or_null: null });
    expect(m.map({ id: 2, email: "a@b.c", missing: 5, phone: "1" })).toEqual({
      id: 2,
      email: "a@b.c",
      contact: { missing: 5 },
      email_text: "a@b.c",
      phone: "1",
      email_or_null: "a@b.c",
    });
    expect(compileMapping([{ from: "id", to: "id", mapping_type: "standard", null_policy: "write" }]).skipsEmpty).toBe(false);
  });

  it("shows the effect in the preview", () => {
    const config = [{ from: "email", to: "email", mapping_type: "standard", null_policy: "skip" }];
    expect(previewMapping(config, sparse)).toEqual({ ok: true, payload: {} });
  });

  it("refuses an unknown policy with a sentence that says what to use", () => {
    expect(() => normalizeConfiguration([{ from: "a", to: "b", mapping_type: "standard", null_policy: "keep" }])).toThrow(
      'Mapping 1 has null_policy "keep"; use "write" (send empty values as null) or "skip" (leave the field out so the destination keeps its value).',
    );
  });
});
