// Redshift discovery. information_schema.columns on Redshift lists local tables and regular views
// only; SVV_COLUMNS adds external (Spectrum) tables and late-binding views, so it is asked first.
// Where it does not exist (PostgreSQL, which the tests run against), information_schema.columns,
// which has the same columns, answers instead. Primary keys are Redshift's informational
// constraints, read from information_schema (Redshift does not enforce them, but they name the key).
import type pg from "pg";
import type { ColumnInfo } from "../shared/sql";
import type { TableInfo } from "../shared/sql-catalog";

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  is_nullable: string;
  column_default: string | null;
}

const columnsFrom = (view: string) =>
  `SELECT table_name, column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable, column_default
     FROM ${view} WHERE table_schema = $1 ORDER BY table_name, ordinal_position`;

/** The column's type as Redshift writes it in DDL: `character varying(256)`, `numeric(12,2)`. */
export function columnType(
  r: Pick<ColumnRow, "data_type" | "character_maximum_length" | "numeric_precision" | "numeric_scale">,
): string {
  const t = r.data_type;
  if (/^(character varying|character|varchar|char|bpchar)$/i.test(t) && r.character_maximum_length)
    return `${t}(${r.character_maximum_length})`;
  if (/^(numeric|decimal)$/i.test(t) && r.numeric_precision)
    return `${t}(${r.numeric_precision},${r.numeric_scale ?? 0})`;
  return t;
}

async function columnRows(client: pg.Client, schema: string): Promise<ColumnRow[]> {
  try {
    return (await client.query<ColumnRow>(columnsFrom("svv_columns"), [schema])).rows;
  } catch (err) {
    // 42P01: no such relation (not a Redshift server); anything else is a real failure.
    if ((err as { code?: string }).code !== "42P01") throw err;
    return (await client.query<ColumnRow>(columnsFrom("information_schema.columns"), [schema])).rows;
  }
}

async function primaryKeys(client: pg.Client, schema: string): Promise<Map<string, string[]>> {
  const keys = new Map<string, string[]>();
  const { rows } = await client
    .query<{ table_name: string; column_name: string }>(
      `SELECT kcu.table_name, kcu.column_name
         FROM information_schema.table_constraints tc
         JOIN information_schema.key_column_usage kcu
           ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name
        WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = $1
        ORDER BY kcu.table_name, kcu.ordinal_position`,
      [schema],
    )
    // Keys are a convenience for the catalog: a server that cannot list them gives streams without one.
    .catch(() => ({ rows: [] as { table_name: string; column_name: string }[] }));
  for (const r of rows) keys.set(r.table_name, [...(keys.get(r.table_name) ?? []), r.column_name]);
  return keys;
}

export async function listRedshiftColumns(
  client: pg.Client,
  schema: string,
): Promise<Map<string, TableInfo>> {
  const rows = await columnRows(client, schema);
  const keys = await primaryKeys(client, schema);
  const tables = new Map<string, TableInfo>();
  for (const r of rows) {
    const table = tables.get(r.table_name) ?? {
      name: r.table_name,
      columns: [] as ColumnInfo[],
      primaryKey: keys.get(r.table_name) ?? [],
    };
    table.columns.push({
      name: r.column_name,
      type: columnType(r),
      nullable: r.is_nullable !== "NO",
      hasDefault: r.column_default !== null,
    });
    tables.set(r.table_name, table);
  }
  return tables;
}
