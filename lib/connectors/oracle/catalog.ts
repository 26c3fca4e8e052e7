// Oracle's tables as the connectors describe them, read from ALL_TAB_COLUMNS and ALL_CONSTRAINTS of
// one owner: the types as Oracle declares them, nullability, defaults and primary keys.
import type { ColumnInfo } from "../shared/sql";
import type { TableInfo } from "../shared/sql-catalog";
import type { OracleSession } from "./driver";

/** Columns of the owner's tables (and, for sources, views); :1 is the owner. */
export function columnsSql(withViews: boolean): string {
  return `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, c.CHAR_LENGTH, c.DATA_PRECISION, c.DATA_SCALE, c.NULLABLE,
       CASE WHEN c.DEFAULT_LENGTH > 0 OR c.IDENTITY_COLUMN = 'YES' THEN 1 ELSE 0 END AS HAS_DEFAULT
  FROM ALL_TAB_COLUMNS c
 WHERE c.OWNER = :1
   AND ${withViews ? "EXISTS (SELECT 1 FROM ALL_OBJECTS o WHERE o.OWNER = c.OWNER AND o.OBJECT_NAME = c.TABLE_NAME AND o.OBJECT_TYPE IN ('TABLE', 'VIEW'))" : "EXISTS (SELECT 1 FROM ALL_TABLES t WHERE t.OWNER = c.OWNER AND t.TABLE_NAME = c.TABLE_NAME)"}
 ORDER BY c.TABLE_NAME, c.COLUMN_ID`;
}

export const PRIMARY_KEYS_SQL = `SELECT cc.TABLE_NAME, cc.COLUMN_NAME
  FROM ALL_CONSTRAINTS k
  JOIN ALL_CONS_COLUMNS cc ON cc.OWNER = k.OWNER AND cc.CONSTRAINT_NAME = k.CONSTRAINT_NAME
 WHERE k.CONSTRAINT_TYPE = 'P' AND k.OWNER = :1
 ORDER BY cc.TABLE_NAME, cc.POSITION`;

/** The declared type: `NUMBER(10,0)`, `NUMBER`, `VARCHAR2(200)`, `TIMESTAMP(6) WITH TIME ZONE`, `DATE`. */
export function declaredType(r: Record<string, unknown>): string {
  const type = String(r.DATA_TYPE);
  const n = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));
  if (type === "NUMBER") {
    const precision = n(r.DATA_PRECISION);
    const scale = n(r.DATA_SCALE);
    if (precision !== undefined) return `NUMBER(${precision},${scale ?? 0})`;
    return scale === 0 ? "NUMBER(*,0)" : "NUMBER";
  }
  if (/^(N?VARCHAR2|N?CHAR)$/.test(type) && n(r.CHAR_LENGTH)) return `${type}(${n(r.CHAR_LENGTH)})`;
  return type;
}

export async function listTables(session: OracleSession, owner: string, withViews: boolean): Promise<Map<string, TableInfo>> {
  const columns = await session.execute(columnsSql(withViews), [owner]);
  const keys = await session.execute(PRIMARY_KEYS_SQL, [owner]);
  const tables = new Map<string, TableInfo>();
  for (const r of columns.rows) {
    const name = String(r.TABLE_NAME);
    const table = tables.get(name) ?? { name, columns: [] as ColumnInfo[], primaryKey: [] as string[] };
    table.columns.push({ name: String(r.COLUMN_NAME), type: declaredType(r), nullable: r.NULLABLE === "Y", hasDefault: Number(r.HAS_DEFAULT) === 1 });
    tables.set(name, table);
  }
  for (const k of keys.rows) tables.get(String(k.TABLE_NAME))?.primaryKey.push(String(k.COLUMN_NAME));
  return tables;
}
