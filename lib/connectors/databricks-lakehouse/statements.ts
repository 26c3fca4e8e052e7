// The statements a batch becomes, Spark SQL with named parameters (every value a STRING parameter
// cast to its column's type, so values travel as text and Databricks checks them): a multi-row
// INSERT, a MERGE for upserts and updates, a DELETE by key. A value the column cannot hold in any
// case (an object for an INT) fails its record up front with a sentence naming column and value.
import type { Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson, markedNumber, scalarText } from "../shared/values";
import { quoteIdent, type LakehouseColumn, type LakehouseTable } from "./tables";

export interface Statement {
  sql: string;
  parameters: Record<string, string>;
}

/** Types whose values are JSON text (VARIANT from parse_json); ARRAY, MAP and STRUCT are not written. */
const COMPLEX = /^(ARRAY|MAP|STRUCT)\b/;

/** A payload value as the text its parameter carries, or null for SQL NULL. */
export function parameterText(column: LakehouseColumn, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const shown = () => (typeof value === "object" ? exactJson(value) : String(value)).slice(0, 100);
  if (COMPLEX.test(column.type)) throw new ConnectorError(`Column "${column.name}" is ${column.type}, which this destination does not write (value ${shown()}).`);
  if (column.type === "VARIANT") return typeof value === "string" && markedNumber(value) === undefined ? JSON.stringify(value) : exactJson(value);
  if (typeof value === "object") {
    if (column.type === "STRING") return exactJson(value);
    throw new ConnectorError(`Column "${column.name}" is ${column.type} and cannot hold the value ${shown()}.`);
  }
  if (typeof value === "number" && !Number.isFinite(value) && !/^(DOUBLE|FLOAT)$/.test(column.type)) throw new ConnectorError(`Column "${column.name}" is ${column.type} and cannot hold the value ${String(value)}.`);
  if (typeof value === "string") return markedNumber(value) ?? value;
  return scalarText(value);
}

/** The SQL of one value: NULL or its parameter, cast to the column's type. */
function valueSql(column: LakehouseColumn, name: string, text: string | null): string {
  if (column.type === "VARIANT") return text === null ? "CAST(NULL AS VARIANT)" : `parse_json(:${name})`;
  return text === null ? `CAST(NULL AS ${column.type})` : `CAST(:${name} AS ${column.type})`;
}

/** The table's three-part name. */
export function target(catalog: string, schema: string, table: LakehouseTable): string {
  return `${quoteIdent(catalog)}.${quoteIdent(schema)}.${quoteIdent(table.name)}`;
}

/** Rows of `columns` as SELECTs (for MERGE's source) or VALUES tuples, with their parameters. */
function rowsSql(table: LakehouseTable, columns: string[], payloads: Row[], asSelect: boolean): Statement {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const parameters: Record<string, string> = {};
  const rows = payloads.map((payload, r) => {
    const cells = columns.map((name, c) => {
      const column = byName.get(name)!;
      const text = parameterText(column, payload[name]);
      const parameter = `p${r}_${c}`;
      if (text !== null) parameters[parameter] = text;
      const sql = valueSql(column, parameter, text);
      return asSelect ? `${sql} AS ${quoteIdent(name)}` : sql;
    });
    return asSelect ? `SELECT ${cells.join(", ")}` : `(${cells.join(", ")})`;
  });
  return { sql: rows.join(asSelect ? " UNION ALL " : ", "), parameters };
}

export function insertStatement(into: string, table: LakehouseTable, columns: string[], records: WriteRecord[]): Statement {
  const values = rowsSql(table, columns, records.map((r) => r.payload), false);
  return { sql: `INSERT INTO ${into} (${columns.map(quoteIdent).join(", ")}) VALUES ${values.sql}`, parameters: values.parameters };
}

/** MERGE on the primary key: matched rows updated, new ones inserted unless `updateOnly`. */
export function mergeStatement(into: string, table: LakehouseTable, columns: string[], records: WriteRecord[], updateOnly: boolean): Statement {
  const source = rowsSql(table, columns, records.map((r) => r.payload), true);
  const on = table.primaryKey.map((k) => `t.${quoteIdent(k)} = s.${quoteIdent(k)}`).join(" AND ");
  const updated = columns.filter((c) => !table.primaryKey.includes(c));
  const whenMatched = updated.length > 0 ? ` WHEN MATCHED THEN UPDATE SET ${updated.map((c) => `${quoteIdent(c)} = s.${quoteIdent(c)}`).join(", ")}` : "";
  const whenNew = updateOnly ? "" : ` WHEN NOT MATCHED THEN INSERT (${columns.map(quoteIdent).join(", ")}) VALUES (${columns.map((c) => `s.${quoteIdent(c)}`).join(", ")})`;
  return { sql: `MERGE INTO ${into} AS t USING (${source.sql}) AS s ON ${on}${whenMatched}${whenNew}`, parameters: source.parameters };
}

export function deleteStatement(into: string, table: LakehouseTable, records: WriteRecord[]): Statement {
  const { conditions, parameters } = keyConditions(table, records.map((r) => r.payload), "d");
  return { sql: `DELETE FROM ${into} WHERE ${conditions.map((c) => `(${c})`).join(" OR ")}`, parameters };
}

/** Per key, `k1 = CAST(:x AS T) AND …`, with its parameters. */
function keyConditions(table: LakehouseTable, keys: Row[], prefix: string): { conditions: string[]; parameters: Record<string, string> } {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const parameters: Record<string, string> = {};
  const conditions = keys.map((key, i) =>
    table.primaryKey
      .map((k, c) => {
        const column = byName.get(k)!;
        const text = parameterText(column, key[k]);
        const name = `${prefix}${i}_${c}`;
        if (text !== null) parameters[name] = text;
        return `${quoteIdent(k)} = ${valueSql(column, name, text)}`;
      })
      .join(" AND "),
  );
  return { conditions, parameters };
}

/** `SELECT i FROM … WHERE key = …` for each key: which are there. */
export function presenceStatement(into: string, table: LakehouseTable, keys: Row[]): Statement {
  const { conditions, parameters } = keyConditions(table, keys, "k");
  return { sql: conditions.map((c, i) => `SELECT ${i} AS i FROM ${into} WHERE ${c}`).join(" UNION ALL "), parameters };
}
