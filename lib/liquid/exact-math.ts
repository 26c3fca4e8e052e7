// Liquid's math filters (plus, minus, times, divided_by, modulo, round, ceil, floor, abs, at_least,
// at_most) without bending a value. Liquid computes with JavaScript numbers, so a numeric(38,10) or a
// bigint past 2^53 (which the value model carries as exact text, lib/connectors/shared/values.ts)
// would come out changed, and NaN would silently count as 0. Here an operand held as exact text (a
// decimal string or a JsonNumber) makes the filter compute in exact decimals (BigInt); the result is
// a JavaScript number when one holds it exactly, else a JsonNumber (written as the number itself in
// JSON, as its digits in text). Operands that are all JavaScript numbers compute as Liquid always did.
// NaN, an infinity, a division by zero or a non-finite result fail the render with a sentence naming
// the value: never a silent 0 or null. Rules: docs/connectors.md, "Values" (templates).
import type { Liquid } from "liquidjs";
import { JsonNumber, markedNumber } from "@/lib/connectors/shared/values";

/** value = m / 10^s, s >= 0. */
interface Decimal {
  m: bigint;
  s: number;
}

const DECIMAL_TEXT = /^\s*([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*$/;
const NON_FINITE = /^\s*[-+]?(nan|infinity|inf)\s*$/i;
/** Digits after the point of a quotient that does not terminate (PostgreSQL numeric keeps at least 16 significant digits; we keep 20 places). */
export const DIVISION_SCALE = 20;
/** Bounds the exponents a decimal text may carry, so "1e999999999" cannot build a huge BigInt. */
const MAX_EXPONENT = 1000;

class MathFilterError extends Error {}

function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_TEXT.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const fraction = m[3] ?? "";
  const exponent = Number(m[4] ?? 0);
  if (Math.abs(exponent) > MAX_EXPONENT) throw new MathFilterError(`${text.trim()} is out of the range these filters compute in`);
  let digits = BigInt((m[2] || "0") + fraction);
  let s = fraction.length - exponent;
  if (s < 0) {
    digits *= 10n ** BigInt(-s);
    s = 0;
  }
  return { m: m[1] === "-" ? -digits : digits, s };
}

/** The operand as exact text, when it is one (a decimal string, a JsonNumber or its marker). */
function exactText(value: unknown): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  if (typeof value !== "string") return undefined;
  return markedNumber(value) ?? value;
}

function toDecimal(value: unknown, filter: string): Decimal {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new MathFilterError(`${filter}: ${String(value)} is not a number it can compute with`);
    return parseDecimal(String(value)) as Decimal;
  }
  const text = exactText(value);
  if (text !== undefined) {
    if (NON_FINITE.test(text)) throw new MathFilterError(`${filter}: ${text.trim()} is not a number it can compute with`);
    const d = parseDecimal(text);
    if (d) return d;
  }
  // Liquid's rule for anything else (nil, a word, a boolean): it counts as 0.
  return { m: 0n, s: 0 };
}

const pow10 = (n: number) => 10n ** BigInt(n);
const align = (a: Decimal, b: Decimal): [bigint, bigint, number] => {
  const s = Math.max(a.s, b.s);
  return [a.m * pow10(s - a.s), b.m * pow10(s - b.s), s];
};
const compare = (a: Decimal, b: Decimal) => {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
};

function text(d: Decimal): string {
  const negative = d.m < 0n;
  const digits = (negative ? -d.m : d.m).toString().padStart(d.s + 1, "0");
  const body = d.s === 0 ? digits : `${digits.slice(0, digits.length - d.s)}.${digits.slice(digits.length - d.s)}`;
  return negative ? `-${body}` : body;
}

/** Division rounded half away from zero to `s` places. */
function divideRounded(a: Decimal, b: Decimal, s: number): Decimal {
  // a.m/10^a.s ÷ b.m/10^b.s = (a.m · 10^(b.s + s - a.s)) / b.m, at scale s.
  const shift = b.s + s - a.s;
  const n = shift >= 0 ? a.m * pow10(shift) : a.m;
  const d = shift >= 0 ? b.m : b.m * pow10(-shift);
  const negative = n < 0n !== d < 0n;
  const [an, ad] = [n < 0n ? -n : n, d < 0n ? -d : d];
  let q = an / ad;
  if ((an % ad) * 2n >= ad) q += 1n;
  return { m: negative ? -q : q, s };
}

/** Whether n/d (an integer ratio) has a finite decimal expansion, and its places. */
function terminatingPlaces(a: Decimal, b: Decimal): number | undefined {
  const gcd = (x: bigint, y: bigint): bigint => (y === 0n ? x : gcd(y, x % y));
  const [x, y] = align(a, b);
  let d = y < 0n ? -y : y;
  d /= gcd(x < 0n ? -x : x, d);
  let twos = 0;
  let fives = 0;
  while (d % 2n === 0n) [d, twos] = [d / 2n, twos + 1];
  while (d % 5n === 0n) [d, fives] = [d / 5n, fives + 1];
  return d === 1n ? Math.max(twos, fives) : undefined;
}

const floorDiv = (n: bigint, d: bigint) => {
  const q = n / d;
  return (n % d !== 0n) && (n < 0n) !== (d < 0n) ? q - 1n : q;
};

/** A JavaScript number when it is exactly this value, else a JsonNumber of its text. */
function result(d: Decimal): number | JsonNumber {
  const t = text(d);
  const n = Number(t);
  const back = parseDecimal(String(n));
  return Number.isFinite(n) && back && compare(back, d) === 0 ? n : new JsonNumber(t);
}

type Filter = (this: unknown, ...args: unknown[]) => unknown;

/** Finite JavaScript numbers only: Liquid's own result, refused when it is not finite (JSON would write null). */
function finite(name: string, liquid: Filter): Filter {
  return function (this: unknown, ...args: unknown[]) {
    const out = liquid.apply(this, args);
    if (typeof out === "number" && !Number.isFinite(out)) {
      throw new MathFilterError(name === "divided_by" && Number(args[1]) === 0 ? `divided_by: ${String(args[0])} cannot be divided by zero` : `${name}: the result is ${String(out)}, which is not a number`);
    }
    return out;
  };
}

/** The filter exact when an operand is exact text, else Liquid's own (checked for a finite result). */
function exact(name: string, liquid: Filter, compute: (args: unknown[]) => Decimal | unknown, operands: number): Filter {
  const plain = finite(name, liquid);
  return function (this: unknown, ...args: unknown[]) {
    const used = args.slice(0, operands);
    const anyText = used.some((a) => exactText(a) !== undefined);
    // Words and empty strings keep Liquid's meaning (0); NaN and infinities in text are refused below.
    const anyExact = used.some((a) => {
      const t = exactText(a);
      return t !== undefined && (NON_FINITE.test(t) || parseDecimal(t) !== undefined);
    });
    if (!anyText || !anyExact) return plain.apply(this, args);
    const out = compute(args);
    return out && typeof out === "object" && "m" in out ? result(out as Decimal) : out;
  };
}

/** Registers the exact math filters on an engine (createLiquid does, for every engine). */
export function registerExactMath(engine: Liquid): void {
  const own = (name: string) => engine.filters[name] as unknown as Filter;
  const d = (v: unknown, name: string) => toDecimal(v, name);
  const two = (name: string, op: (a: Decimal, b: Decimal) => Decimal) =>
    exact(name, own(name), (args) => op(d(args[0], name), d(args[1], name)), 2);
  const filters: Record<string, Filter> = {
    plus: two("plus", (a, b) => {
      const [x, y, s] = align(a, b);
      return { m: x + y, s };
    }),
    minus: two("minus", (a, b) => {
      const [x, y, s] = align(a, b);
      return { m: x - y, s };
    }),
    times: two("times", (a, b) => ({ m: a.m * b.m, s: a.s + b.s })),
    divided_by: exact(
      "divided_by",
      own("divided_by"),
      (args) => {
        const [a, b] = [d(args[0], "divided_by"), d(args[1], "divided_by")];
        if (b.m === 0n) throw new MathFilterError(`divided_by: ${text(a)} cannot be divided by zero`);
        if (args[2] === true) {
          const [x, y] = align(a, b);
          return { m: floorDiv(x, y), s: 0 };
        }
        return divideRounded(a, b, terminatingPlaces(a, b) ?? Math.max(DIVISION_SCALE, a.s, b.s));
      },
      2,
    ),
    modulo: two("modulo", (a, b) => {
      if (b.m === 0n) throw new MathFilterError(`modulo: ${text(a)} has no remainder by zero`);
      // Liquid's floored modulo: the result takes the divisor's sign.
      const [x, y, s] = align(a, b);
      return { m: ((x % y) + y) % y, s };
    }),
    round: exact(
      "round",
      own("round"),
      (args) => {
        const a = d(args[0], "round");
        const places = Math.max(0, Math.trunc(Number(args[1] ?? 0)) || 0);
        return places >= a.s ? a : divideRounded(a, { m: 1n, s: 0 }, places);
      },
      1,
    ),
    ceil: exact("ceil", own("ceil"), (args) => {
      const a = d(args[0], "ceil");
      return { m: -floorDiv(-a.m, pow10(a.s)), s: 0 };
    }, 1),
    floor: exact("floor", own("floor"), (args) => {
      const a = d(args[0], "floor");
      return { m: floorDiv(a.m, pow10(a.s)), s: 0 };
    }, 1),
    abs: exact("abs", own("abs"), (args) => {
      const a = d(args[0], "abs");
      return { m: a.m < 0n ? -a.m : a.m, s: a.s };
    }, 1),
    at_least: two("at_least", (a, b) => (compare(a, b) >= 0 ? a : b)),
    at_most: two("at_most", (a, b) => (compare(a, b) <= 0 ? a : b)),
  };
  for (const [name, filter] of Object.entries(filters)) engine.registerFilter(name, filter);
}
