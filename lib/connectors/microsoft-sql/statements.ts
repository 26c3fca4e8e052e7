// The SQL text and parameters of the Microsoft SQL destination's writes: multi-row VALUES lists with
// one typed parameter per cell (a cell the server must convert is CAST to its column's type), merged
// by primary key. Statements stay under SQL Server's 2,100 parameters and 1,000 VALUES rows.
import type { Row, WriteAction, WriteRecord } from "../types";
import type { TableInfo } from "../shared/sql-catalog";
import { ConnectorError } from "../shared/errors";
import type { MssqlParam } from "./driver";
import { bindValue, ValueRefused } from "./values";

/** SQL Server allows 2,100 parameters per request; a little is kept for the fixed ones. */
export const MAX_PARAMS = 2000;
/** A VALUES list of an INSERT takes at most 1,000 rows. */
export const MAX_ROWS = 1000;

export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new ConnectorError("Identifiers cannot contain NUL characters.");
  return `[${name.replace(/]/g, "]]")}]`;
}

export interface Statement {
  sql: string;
  params: MssqlParam[];
  /** The records this statement writes, in the order of its VALUES rows. */
  records: WriteRecord[];
}

/** Records per statement for `columns` cells each. */
export function rowsPerStatement(columnCount: number): number {
  return Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / Math.max(1, columnCount))));
}

/**
 * The VALUES rows of `records` over `columns`, binding each cell with the column's type. A value the
 * column cannot hold throws ValueRefused before anything is sent. `ordinal`: a first cell with the
 * row's index in the statement (our own integer, written into the text).
 */
function valuesRows(table: TableInfo, columns: readonly string[], records: WriteRecord[], ordinal: boolean): { rows: string; params: MssqlParam[] } {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const params: MssqlParam[] = [];
  const rows = records.map((r, i) => {
    const cells = columns.map((c) => {
      const bound = bindValue(c, types.get(c) ?? "nvarchar(max)", r.payload[c]);
      const name = `p${params.length}`;
      params.push({ name, type: bound.type, value: bound.value });
      return bound.cast ? `CAST(@${name} AS ${bound.cast})` : `@${name}`;
    });
    return `(${ordinal ? `${i}, ` : ""}${cells.join(", ")})`;
  });
  return { rows: rows.join(", "), params };
}

/** The values the records' columns cannot hold, by record key: those records fail up front. */
export function refusedValues(table: TableInfo, columns: readonly string[], records: WriteRecord[]): Map<string, string> {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const refused = new Map<string, string>();
  for (const r of records) {
    for (const c of columns) {
      try {
        bindValue(c, types.get(c) ?? "nvarchar(max)", r.payload[c]);
      } catch (err) {
        if (!(err instanceof ValueRefused)) throw err;
        refused.set(r.key, err.message);
        break;
      }
    }
  }
  return refused;
}

/** The statements that write `records` (one action, one column list), chunked under the limits. */
export function writeStatements(schema: string, table: TableInfo, action: WriteAction, columns: string[], records: WriteRecord[]): Statement[] {
  const target = `${quoteIdent(schema)}.${quoteIdent(table.name)}`;
  const pk = table.primaryKey;
  const cols = action === "delete" ? pk : columns;
  const list = cols.map(quoteIdent).join(", ");
  const match = pk.map((c) => `t.${quoteIdent(c)} = s.${quoteIdent(c)}`).join(" AND ");
  const sets = columns.filter((c) => !pk.includes(c)).map((c) => `t.${quoteIdent(c)} = s.${quoteIdent(c)}`);
  const size = rowsPerStatement(cols.length);
  const statements: Statement[] = [];
  for (let start = 0; start < records.length; start += size) {
    const chunk = records.slice(start, start + size);
    const ordinal = action === "update";
    const { rows, params } = valuesRows(table, cols, chunk, ordinal);
    const source = `(VALUES ${rows}) AS s (${ordinal ? "[ds_ord], " : ""}${list})`;
    let sql: string;
    switch (action) {
      case "insert":
        sql = `INSERT INTO ${target} (${list}) VALUES ${rows};`;
        break;
      case "upsert":
        // HOLDLOCK: two writers merging the same new key cannot both take the NOT MATCHED branch.
        sql =
          `MERGE INTO ${target} WITH (HOLDLOCK) AS t USING ${source} ON ${match}` +
          (sets.length > 0 ? ` WHEN MATCHED THEN UPDATE SET ${sets.join(", ")}` : "") +
          ` WHEN NOT MATCHED THEN INSERT (${list}) VALUES (${cols.map((c) => `s.${quoteIdent(c)}`).join(", ")});`;
        break;
      case "update": {
        // The rows whose key matches nothing are read first (an UPDATE's OUTPUT clause is refused on tables with triggers).
        const keyMatch = pk.map((c) => `t.${quoteIdent(c)} = s.${quoteIdent(c)}`).join(" AND ");
        const setList = sets.length > 0 ? sets : [`t.${quoteIdent(pk[0])} = t.${quoteIdent(pk[0])}`];
        sql =
          `SELECT s.[ds_ord] AS ds_ord FROM ${source} WHERE NOT EXISTS (SELECT 1 FROM ${target} AS t WHERE ${keyMatch});\n` +
          `UPDATE t SET ${setList.join(", ")} FROM ${target} AS t INNER JOIN ${source} ON ${keyMatch};`;
        break;
      }
      case "delete":
        // Deleting a row that is already gone is a success: the destination ends up as asked.
        sql = `DELETE t FROM ${target} AS t INNER JOIN ${source} ON ${match};`;
        break;
    }
    statements.push({ sql, params, records: chunk });
  }
  return statements;
}

/** The `ds_ord` rows an update's first SELECT returned, as the record keys that matched nothing. */
export function missedKeys(statement: Statement, rows: Row[]): string[] {
  return rows.map((r) => statement.records[Number(r.ds_ord)]?.key).filter((k): k is string => k !== undefined);
}
