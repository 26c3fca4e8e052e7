// Databricks' JSON_ARRAY results carry every value as a string (null as null), typed by the
// manifest's schema (type_name): here they become the value model's values (shared/values.ts).
import { parseJsonExact } from "../shared/values";
import { cellRowsReader, type CellConverter } from "../shared/statement-api";
import type { JsonSchema } from "../types";
import { integerValue } from "../snowflake/values";

export interface DatabricksColumn {
  name: string;
  type_name: string;
  type_text?: string;
  position?: number;
}

type Convert = CellConverter;

const floatValue: Convert = (text) => {
  const n = Number(text);
  if (Number.isFinite(n)) return n;
  const lower = text.toLowerCase();
  return lower === "nan" ? "NaN" : lower.startsWith("-") ? "-Infinity" : lower.includes("inf") ? "Infinity" : text;
};

/** `2024-05-01T08:00:00.123Z`, `2024-05-01 08:00:00.123456+02:00`… → ISO 8601 in UTC, at least milliseconds. */
const instantValue: Convert = (text) => {
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/.exec(text.trim());
  if (!m) return text;
  const zone = !m[4] || m[4] === "Z" ? "Z" : `${m[4].slice(0, 3)}:${m[4].slice(-2)}`;
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  if (Number.isNaN(ms)) return text;
  const fraction = (m[3] ?? "").replace(/0+$/, "").padEnd(3, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`;
};

/** TIMESTAMP_NTZ: `YYYY-MM-DDThh:mm:ss[.f]`, no zone, as PostgreSQL prints timestamp. */
const wallClockValue: Convert = (text) => {
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!m) return text;
  const fraction = (m[3] ?? "").replace(/0+$/, "");
  return `${m[1]}T${m[2]}${fraction ? `.${fraction}` : ""}`;
};

const jsonValue: Convert = (text) => {
  try {
    return parseJsonExact(text);
  } catch {
    return text;
  }
};

export function databricksConverter(column: DatabricksColumn): Convert | undefined {
  switch (column.type_name.toUpperCase()) {
    case "BYTE":
    case "SHORT":
    case "INT":
    case "LONG":
      return integerValue;
    case "FLOAT":
    case "DOUBLE":
      return floatValue;
    case "BOOLEAN":
      return (t) => t === "true";
    case "TIMESTAMP":
      return instantValue;
    case "TIMESTAMP_NTZ":
      return wallClockValue;
    case "BINARY":
      // Base64 in JSON_ARRAY results; bytes travel as `\x` hex.
      return (t) => `\\x${Buffer.from(t, "base64").toString("hex")}`;
    case "ARRAY":
    case "MAP":
    case "STRUCT":
    case "VARIANT":
      return jsonValue;
    default:
      // DECIMAL (exact text), STRING, CHAR, DATE (YYYY-MM-DD), INTERVAL: the warehouse's text.
      return undefined;
  }
}

export function databricksRowsReader(columns: DatabricksColumn[]): (data: (string | null)[][]) => Record<string, unknown>[] {
  return cellRowsReader(
    columns.map((c) => c.name),
    columns.map(databricksConverter),
  );
}

/** JSON Schema of a column discovered from information_schema.columns (data_type, e.g. `DECIMAL`, `BIGINT`). */
export function databricksColumnSchema(dataType: string, nullable: boolean, fullType?: string): JsonSchema {
  const t = dataType.toUpperCase();
  let schema: JsonSchema;
  if (["TINYINT", "BYTE", "SMALLINT", "SHORT", "INT", "INTEGER"].includes(t)) schema = { type: "integer" };
  else if (t === "BIGINT" || t === "LONG") schema = { type: ["integer", "string"] };
  else if (t === "DECIMAL") schema = { type: "string" };
  else if (t === "FLOAT" || t === "DOUBLE") schema = { type: ["number", "string"] };
  else if (t === "BOOLEAN") schema = { type: "boolean" };
  else if (t === "DATE") schema = { type: "string", format: "date" };
  else if (t.startsWith("TIMESTAMP")) schema = { type: "string", format: "date-time" };
  else if (t === "ARRAY") schema = { type: "array" };
  else if (t === "MAP" || t === "STRUCT") schema = { type: "object" };
  else if (t === "VARIANT") schema = {};
  else schema = { type: "string" };
  if (nullable && schema.type !== undefined) schema = { ...schema, type: [...[schema.type].flat(), "null"] };
  return { ...schema, $comment: fullType || t };
}
