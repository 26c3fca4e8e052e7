// The plain-function templates (fast-template.ts) against Liquid itself: for every supported shape and
// awkward values, the mapped payload (or the row's error) is identical to the Liquid-only mapping's.
import { inspect, isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { JsonNumber } from "@/lib/connectors/shared/values";
import { TEMPLATE_LIMITS } from "@/lib/liquid/engine";
import { compileMapping, MappingError } from "./mapping";

const NOW = new Date("2026-02-24T12:00:00.123Z");

type Outcome = { payload: Record<string, unknown> } | { error: string };

function outcome(configuration: unknown[], row: Record<string, unknown>, liquidOnly: boolean): Outcome {
  try {
    return { payload: compileMapping(configuration, { liquidOnly }).map(row, NOW) };
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    return { error: err.message };
  }
}

const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { b: "in a null-prototype object" });

/** Values a row can hold: JSON's, and what pass-through rows and broken sources bring. */
const VALUES: unknown[] = [
  null, undefined, "", " ", "  Ada Lovelace \t\n", "ADA@Example.COM", "ÀÉÎ straße İstanbul ǅ", "🎉 emoji 𝒜", "ß",
  "12345678901234567890", "1.50", "-0", "NaN", "Infinity", "1e400", "\u0000ds:n:12345678901234567890", "false", "nil",
  0, -0, 1.5, -2, 1e21, 5e-7, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity, true, false,
  { b: "nested", c: { d: "deep" } }, { b: null }, { b: 0 }, { size: 3 }, [], ["a", "b"], [1, [2]], nullProto,
  new JsonNumber("12345678901234567890"), new JsonNumber("1.50"), new Date(NOW),
];

/** Every shape the compiler handles, and some it must leave to Liquid. */
const PLAIN = [
  "{{ v }}", "{{v}}", "{{- v -}}", " {{ v }} ", "{{ v | downcase }}", "{{ v | upcase }}", "{{ v | strip }}", "{{ v | lstrip }}",
  "{{ v | rstrip }}", "{{ v | default: 'none' }}", "{{ v | default: 7 }}", "{{ v | default: '' | upcase }}",
  "{{ v | append: '-x' }}", '{{ v | prepend: "x-" }}', "{{ v | append: 1.5 }}", "{{ v | strip | downcase | append: '@x' }}",
  "{{ v.b }}", "{{ v.c.d | upcase }}", "{{ v.b | default: 'no b' }}", "{{ missing | default: 'gone' }}", "{{ current_timestamp }}",
  "{{ current_timestamp | append: 'Z' }}", "Hi {{ v }}", "plain text", "{{ v }} {{ v | upcase }}!", "{{- v }} - {{ v.b -}} .",
  "<{{ v | default: 'x' }}>\n{{ current_timestamp }}", "{{ v }}{{ missing }}{{ v.c.d }}",
];
const LIQUID = [
  "{{ v | cast: 'number' }}", "{{ v | size }}", "{{ v.size }}", "{{ v.first }}", "{{ v | strip: 'A' }}", "{{ v | default: x }}",
  "{{ v | default: 'a', allow_false: true }}", "{{ v }}{% if v %}!{% endif %}", "{% raw %}{{ v }}{% endraw %}", "{{ v['b'] }}", "{{ v | json }}", "{{ v | plus: 1 }}", "{{ constructor }}",
];

describe("plain-function templates", () => {
  it("compile the common shapes and leave the others to Liquid", () => {
    for (const from of PLAIN) {
      expect(compileMapping([{ from, to: "out", mapping_type: "template" }]).plainTemplates, from).toEqual({ plain: 1, total: 1 });
    }
    for (const from of LIQUID) {
      expect(compileMapping([{ from, to: "out", mapping_type: "template" }]).plainTemplates, from).toEqual({ plain: 0, total: 1 });
    }
  });

  it("map every value exactly as Liquid does, errors and null policy included", () => {
    let compared = 0;
    for (const from of [...PLAIN, ...LIQUID]) {
      for (const policy of ["write", "skip"] as const) {
        const configuration = [
          { from, to: "out", mapping_type: "template", null_policy: policy },
          { from: "v", to: "copy.v", mapping_type: "standard" },
          { from: "CA", to: "state", mapping_type: "static" },
        ];
        for (const v of VALUES) {
          const row = v === undefined ? { other: 1 } : { v, current_timestamp: "a column" };
          const plain = outcome(configuration, row, false);
          const liquid = outcome(configuration, row, true);
          expect(isDeepStrictEqual(plain, liquid), `${from} (${policy}) with ${inspect(v)}: ${inspect(plain)} vs ${inspect(liquid)}`).toBe(true);
          compared++;
        }
      }
    }
    expect(compared).toBe((PLAIN.length + LIQUID.length) * 2 * VALUES.length);
  });

  it("agree on random templates and values (seeded)", () => {
    let seed = 37;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const filters = ["downcase", "upcase", "strip", "lstrip", "rstrip", "default: 'd'", "default: 0", "append: 'a'", "prepend: '€'", "append: 2"];
    for (let i = 0; i < 2000; i++) {
      const chain = Array.from({ length: Math.floor(random() * 4) }, () => ` | ${pick(filters)}`).join("");
      const output = `{{ ${pick(["v", "v.b", "v.c.d", "w"])}${chain} }}`;
      const from = pick([output, `${output}`, `a ${output} b`, `${output}-{{ w | strip }}`, `{{- w }} ${output}`]);
      const configuration = [{ from, to: pick(["out", "a.out", "list[]"]), mapping_type: "template", null_policy: pick(["write", "skip"]) }];
      const row = { v: pick(VALUES), w: pick(VALUES) };
      expect(isDeepStrictEqual(outcome(configuration, row, false), outcome(configuration, row, true)), `${from} with ${inspect(row)}`).toBe(true);
    }
  });

  it("fail a row past the render's memory limit with Liquid's own error", () => {
    const configuration = [{ from: "{{ v | append: 'x' | downcase }}", to: "out", mapping_type: "template" }];
    const big = "A".repeat(Math.ceil(TEMPLATE_LIMITS.memory / 2));
    const plain = outcome(configuration, { v: big }, false);
    expect(plain).toEqual(outcome(configuration, { v: big }, true));
    expect(plain).toEqual({ error: expect.stringMatching(/size limit of one render/) as unknown });
    const twice = [{ from: "{{ v }}{{ v }}x", to: "out", mapping_type: "template" }];
    expect(outcome(twice, { v: big }, false)).toEqual(outcome(twice, { v: big }, true));
    expect(outcome(twice, { v: big }, false)).toEqual({ error: expect.stringMatching(/size limit of one render/) as unknown });
  });
});
