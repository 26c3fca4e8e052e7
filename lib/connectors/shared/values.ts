// The value model: how a source value travels through the engine (fingerprints, the unchanged
// filter, mapping, templates, records, plans) so that every destination can write it back exactly.
// A row is plain JSON-able data; where a JavaScript number or object would bend a value, the value
// travels as its exact text instead. The table of source types, how each travels and how each
// destination writes it is in docs/connectors.md ("Values").
//
// One thing JSON.stringify cannot do on Node 20 is write a number from its text (JSON.rawJSON is
// Node 21+), and a number inside a JSON document (jsonb `{"n": 12345678901234567890}`, `1.50`) would
// bend as a JavaScript number. Such a number travels as a JsonNumber, which serializes to a marker
// string (`"\u0000ds:n:12345678901234567890"`) that survives every JSON round trip (records, plans,
// fingerprints) and that exactJson() turns back into the number itself wherever JSON leaves the
// engine: a destination's payload, an API response.

/** The marker's prefix. A NUL cannot occur in PostgreSQL text; exactJson() only takes a valid number after it. */
const MARKER = "\u0000ds:n:";
/** The marker as JSON.stringify writes it inside a string. */
const MARKER_JSON = "\\u0000ds:n:";
/** A marker string holding a JSON number, as it appears in JSON text. */
const MARKED_NUMBER = /"\\u0000ds:n:(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"/g;

/** A number inside a JSON document that a JavaScript number would not hold exactly: kept as its text. */
export class JsonNumber {
  constructor(readonly text: string) {}
  /** A marker string; exactJson() writes the number itself. */
  toJSON(): string {
    return MARKER + this.text;
  }
  /** Templates print the number as written. */
  toString(): string {
    return this.text;
  }
  valueOf(): number {
    return Number(this.text);
  }
}

/** The exact text of a JsonNumber's marker string, or undefined for any other string. */
export function markedNumber(value: string): string | undefined {
  if (!value.startsWith(MARKER)) return undefined;
  const text = value.slice(MARKER.length);
  return /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/.test(text) ? text : undefined;
}

/**
 * JSON text of a value, with each JsonNumber (or its marker, as stored in records and plans) written
 * as the number itself. What every destination that sends JSON, and the API, writes.
 */
export function exactJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? "null";
  return text.includes(MARKER_JSON) ? text.replace(MARKED_NUMBER, "$1") : text;
}

/** Whether a number token (JSON grammar) reads back as the same text through a JavaScript number. */
function exactAsNumber(token: string): boolean {
  return String(Number(token)) === token;
}

/**
 * JSON text parsed as JSON.parse would, except that a number a JavaScript number would bend
 * (12345678901234567890, 1.50, 1e3, -0) becomes a JsonNumber with its text. Fast path: documents
 * with no such number go straight to JSON.parse.
 */
export function parseJsonExact(text: string): unknown {
  const bent = bentNumbers(text);
  if (bent.length === 0) return JSON.parse(text);
  // Each bent number becomes a marker string in the text, which the reviver turns into a JsonNumber.
  let out = "";
  let at = 0;
  for (const [start, end] of bent) {
    out += `${text.slice(at, start)}"${MARKER_JSON}${text.slice(start, end)}"`;
    at = end;
  }
  out += text.slice(at);
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value !== "string") return value;
    const number = markedNumber(value);
    return number === undefined ? value : new JsonNumber(number);
  });
}

/** [start, end) of every number token outside strings whose JavaScript number would print otherwise. */
function bentNumbers(text: string): [number, number][] {
  const found: [number, number][] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string, escapes included.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      if (!exactAsNumber(text.slice(i, j))) found.push([i, j]);
      i = j - 1;
    }
  }
  return found;
}

/** NaN and the infinities travel as the text PostgreSQL and most databases read back: JSON has no such numbers. */
export function nonFiniteText(value: number): string {
  return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
}

/** A float read from a source: the number when finite, else its text ("NaN", "Infinity", "-Infinity"). */
export function floatValue(value: number): number | string {
  return Number.isFinite(value) ? value : nonFiniteText(value);
}

/**
 * The text a SQL destination writes for a scalar value into a non-JSON column: strings as they are,
 * numbers and booleans as text, a JsonNumber (or its marker) as its digits, anything else as exact JSON.
 */
export function scalarText(value: unknown): string {
  switch (typeof value) {
    case "string":
      return markedNumber(value) ?? value;
    case "number":
      return Number.isFinite(value) ? String(value) : nonFiniteText(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    default:
      if (value instanceof JsonNumber) return value.text;
      return value instanceof Date ? value.toISOString() : exactJson(value);
  }
}
