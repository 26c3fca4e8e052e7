// How the value model (shared/values.ts) meets a SaaS field, once for every REST-kit vendor. Values
// travel as they are, except into a number field (the stream's JSON schema says number or integer,
// and at most also string): there a number held as exact text (numeric, a bigint past 2^53, a number
// inside JSON) is sent as a JSON number when that number is the same value, and the record fails
// with a sentence naming the column and the value when it is not (too many digits for the vendor's
// double) or when it is NaN or an infinity, which no SaaS number holds. Rules and examples:
// docs/connectors.md, "Values".
import { ConnectorError } from "../shared/errors";
import { JsonNumber, markedNumber } from "../shared/values";
import type { JsonSchema, Row, Stream, WriteRecord } from "../types";

const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const NON_FINITE = new Set(["NaN", "Infinity", "+Infinity", "-Infinity", "infinity", "-infinity"]);

/** Whether a field's schema is a vendor's number: number or integer, at most with string and null beside it. */
export function isNumberField(schema: JsonSchema | undefined): boolean {
  const type = schema?.type;
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  return types.some((t) => t === "number" || t === "integer") && types.every((t) => ["number", "integer", "string", "null"].includes(String(t)));
}

/** A decimal text as sign, significant digits and exponent, so two texts of one value compare equal. */
function canonical(text: string): string {
  const m = /^([-+]?)(\d*)\.?(\d*)(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m) return text;
  let digits = m[2] + m[3];
  let exponent = Number(m[4] ?? 0) - m[3].length;
  digits = digits.replace(/^0+/, "");
  if (digits === "") return "0";
  const trailing = /0*$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return `${m[1] === "-" ? "-" : ""}${digits}e${exponent}`;
}

/** The JavaScript number of a decimal text when it is exactly that value (12.50 → 12.5), else undefined. */
export function exactNumber(text: string): number | undefined {
  const n = Number(text);
  return Number.isFinite(n) && canonical(String(n)) === canonical(text) ? n : undefined;
}

/** A value short enough for a sentence. */
const shown = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** One value bound for a number field: as is, the exact number, or a ConnectorError naming column and value. */
function numberValue(value: unknown, column: string, vendor: string): unknown {
  const text = value instanceof JsonNumber ? value.text : typeof value === "string" ? (markedNumber(value) ?? value) : undefined;
  if (text === undefined) return value;
  if (NON_FINITE.has(text)) {
    throw new ConnectorError(`Column "${column}" holds ${text}, which ${vendor} cannot hold in a number field (no NaN or infinity there); map it to a text field or filter it out in the model.`);
  }
  // Text that is no number (an empty string, a word) goes as it is: the vendor's own answer names it.
  if (!NUMBER_TEXT.test(text)) return value;
  const n = exactNumber(text);
  if (n === undefined) {
    throw new ConnectorError(
      `Column "${column}" holds ${shown(text)}, which ${vendor} cannot hold exactly in a number field (it would become ${String(Number(text))}); map it to a text field, or round it in the model.`,
    );
  }
  return n;
}

/**
 * The record as a vendor's `item` sees it: values bound for number fields of the stream's schema
 * converted by the rules above (throws ConnectorError, failing the record alone), the rest unchanged.
 */
export function restRecord(record: WriteRecord, stream: Stream, vendor: string): WriteRecord {
  const properties = (stream.json_schema as { properties?: Record<string, JsonSchema> } | undefined)?.properties;
  if (!properties) return record;
  let payload: Row | undefined;
  for (const [column, value] of Object.entries(record.payload)) {
    if (value === null || value === undefined || typeof value === "number" || !isNumberField(properties[column])) continue;
    const converted = numberValue(value, column, vendor);
    if (converted === value) continue;
    payload ??= { ...record.payload };
    payload[column] = converted;
  }
  return payload ? { ...record, payload } : record;
}
