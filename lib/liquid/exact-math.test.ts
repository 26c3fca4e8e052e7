// Liquid's math filters on values held as exact text (exact-math.ts), through a mapping template
// (lib/sync-rules/templates.ts) and a connector template (shared/liquid.ts): exact decimals, no
// silent 0 for NaN, a sentence for what cannot be computed, Liquid's behaviour for plain numbers.
import { describe, expect, it } from "vitest";
import { renderTemplate } from "@/lib/connectors/shared/liquid";
import { exactJson, JsonNumber } from "@/lib/connectors/shared/values";
import { compileTemplate } from "@/lib/sync-rules/templates";

const render = (source: string, row: Record<string, unknown>) => compileTemplate(source).render(row);
const json = (source: string, row: Record<string, unknown>) => exactJson(render(source, row));

describe("exact math filters", () => {
  it("compute exactly on numerics and bigints held as text", () => {
    const row = { amount: "9999999999999999999999999999.9999999998", big: "9007199254740993", small: "0.1000000000", price: "12.50" };
    expect(json("{{ amount | plus: '0.0000000001' }}", row)).toBe("9999999999999999999999999999.9999999999");
    expect(json("{{ big | plus: 1 }}", row)).toBe("9007199254740994");
    expect(json("{{ big | minus: 2 }}", row)).toBe("9007199254740991");
    expect(json("{{ big | times: 10 }}", row)).toBe("90071992547409930");
    expect(json("{{ small | plus: '0.2' }}", row)).toBe("0.3");
    expect(json("{{ price | times: 3 }}", row)).toBe("37.5");
    // A result a JavaScript number holds exactly is one (13.5), so destinations and `cast` see a number.
    expect(render("{{ price | plus: 1 }}", row)).toBe(13.5);
    expect(render("{{ big | plus: 2 }}", row)).toEqual(new JsonNumber("9007199254740995"));
    // Text output prints the digits.
    expect(render("total: {{ big | plus: 2 }}", row)).toBe("total: 9007199254740995");
    expect(renderTemplate("{{ big | plus: 2 }}/{{ amount | minus: amount }}", row)).toBe("9007199254740995/0");
  });

  it("divide, round and bound exactly", () => {
    const row = { big: "9223372036854775807", price: "12.345", neg: "-2.5", tiny: "0.0000000001" };
    expect(json("{{ big | divided_by: 2 }}", row)).toBe("4611686018427387903.5");
    expect(json("{{ big | divided_by: 2, true }}", row)).toBe("4611686018427387903");
    expect(json("{{ neg | divided_by: 2, true }}", row)).toBe("-2");
    // A quotient that does not terminate keeps 20 places, rounded half away from zero.
    expect(json("{{ price | divided_by: 3 }}", row)).toBe("4.115");
    expect(json("{{ '1' | divided_by: 3 }}", row)).toBe("0.33333333333333333333");
    expect(json("{{ price | round: 2 }}", row)).toBe("12.35");
    expect(json("{{ neg | round }}", row)).toBe("-3");
    expect(json("{{ big | round }}", row)).toBe("9223372036854775807");
    expect(json("{{ neg | ceil }}", row)).toBe("-2");
    expect(json("{{ neg | floor }}", row)).toBe("-3");
    expect(json("{{ neg | abs }}", row)).toBe("2.5");
    expect(json("{{ big | modulo: 10 }}", row)).toBe("7");
    expect(json("{{ neg | modulo: 2 }}", row)).toBe("1.5");
    expect(json("{{ big | at_most: '9223372036854775806' }}", row)).toBe("9223372036854775806");
    expect(json("{{ tiny | at_least: 0 }}", row)).toBe("1e-10");
  });

  it("refuse NaN, infinities and division by zero with a sentence naming the value, never a silent 0 or null", () => {
    expect(() => render("{{ f | plus: 1 }}", { f: "NaN" })).toThrow(/failed: plus: NaN is not a number it can compute with/);
    expect(() => render("{{ f | times: 2 }}", { f: "-Infinity" })).toThrow(/times: -Infinity is not a number/);
    expect(() => render("{{ n | divided_by: 0 }}", { n: "12.50" })).toThrow(/divided_by: 12\.50 cannot be divided by zero/);
    expect(() => render("{{ n | divided_by: 0 }}", { n: 5 })).toThrow(/divided_by: 5 cannot be divided by zero/);
    expect(() => render("{{ n | times: n }}", { n: 1e200 })).toThrow(/times: the result is Infinity, which is not a number/);
    expect(() => renderTemplate("{{ f | minus: 1 }}", { f: "Infinity" })).toThrow(/minus: Infinity is not a number/);
  });

  it("keep Liquid's behaviour for JavaScript numbers and for words", () => {
    expect(render("{{ a | plus: b }}", { a: 0.1, b: 0.2 })).toBe(0.1 + 0.2);
    expect(render("{{ a | divided_by: 4 }}", { a: 10 })).toBe(2.5);
    expect(render("{{ a | round: 1 }}", { a: 2.45 })).toBe(2.5);
    expect(render("{{ missing | plus: 1 }}", {})).toBe(1);
    expect(render("{{ word | plus: 1 }}", { word: "abc" })).toBe(1);
    expect(render("{{ a | modulo: 3 }}", { a: -7 })).toBe(2);
  });
});
