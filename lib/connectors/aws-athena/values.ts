// Athena's result cells (every value as VarCharValue text; a NULL has none) into the value model
// (docs/connectors.md "Values"), by the column's type: integers as numbers (bigint its digits when a
// number would bend it), decimal its exact text, double/real a number or NaN/±Infinity as text,
// boolean a boolean, varbinary `\x` hex, timestamp `YYYY-MM-DDThh:mm:ss.fff`, timestamp with time
// zone in UTC as ISO 8601 with Z, json parsed exactly. Arrays, maps and rows come as Athena's own
// text (`[1, 2]`, `{a=1}`), which is not JSON: a model that wants JSON casts them (CAST(x AS JSON)).
import type { JsonSchema } from "../types";
import { floatValue, parseJsonExact } from "../shared/values";

export function cellValue(type: string, text: string | undefined): unknown {
  if (text === undefined) return null;
  const t = type.toLowerCase();
  switch (t) {
    case "tinyint":
    case "smallint":
    case "integer":
    case "int":
      return Number(text);
    case "bigint": {
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : text;
    }
    case "double":
    case "real":
    case "float":
      return floatValue(Number(text));
    case "boolean":
      return text === "true";
    case "varbinary":
      return `\\x${text.replace(/\s+/g, "")}`;
    case "json":
      return parseJsonExact(text);
    case "timestamp":
      return text.replace(" ", "T");
    case "timestamp with time zone": {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)? UTC$/.exec(text);
      return m ? `${m[1]}T${m[2]}${(m[3] ?? ".").padEnd(4, "0")}Z` : text;
    }
    default:
      // decimal, varchar, char, date, time, interval, uuid, ipaddress, array, map, row: the text.
      return text;
  }
}

/** The cursor's text (as a row carried it) back into a literal Athena reads for the column's type. */
export function cursorLiteral(type: string, value: string): string {
  const t = type.toLowerCase();
  let text = value;
  if (t.startsWith("timestamp with time zone")) text = value.replace("T", " ").replace(/Z$/, " UTC");
  else if (t.startsWith("timestamp")) text = value.replace("T", " ").replace(/Z$/, "");
  return `'${text.replace(/'/g, "''")}'`;
}

/** JSON Schema of a column from its Athena type (`bigint`, `decimal(10,2)`, `array<string>`). */
export function columnSchema(type: string): JsonSchema {
  const t = type.toLowerCase();
  let schema: JsonSchema;
  if (/^(tinyint|smallint|int|integer)$/.test(t)) schema = { type: ["integer", "null"] };
  else if (t === "bigint") schema = { type: ["integer", "string", "null"] };
  else if (/^(double|real|float)$/.test(t)) schema = { type: ["number", "string", "null"] };
  else if (t === "boolean") schema = { type: ["boolean", "null"] };
  else if (t === "date") schema = { type: ["string", "null"], format: "date" };
  else if (t.startsWith("timestamp")) schema = { type: ["string", "null"], format: "date-time" };
  else if (t === "json") schema = {};
  else schema = { type: ["string", "null"] };
  return { ...schema, $comment: type };
}
