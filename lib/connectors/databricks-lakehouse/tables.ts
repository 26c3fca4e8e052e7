// What the destination knows of a table: its columns with their Databricks types and its primary
// key (Unity Catalog's informational PRIMARY KEY constraint), read from the catalog's
// information_schema with one statement each, cached briefly so every batch does not ask again.
import { ConnectorError } from "../shared/errors";
import { setBounded } from "../shared/bounded-cache";
import { executeStatement } from "../databricks/client";
import type { DatabricksConfig } from "../databricks/config";

export interface LakehouseColumn {
  name: string;
  /** The type as CAST takes it: INT, DECIMAL(12,2), STRING, TIMESTAMP… */
  type: string;
  nullable: boolean;
}

export interface LakehouseTable {
  name: string;
  columns: LakehouseColumn[];
  primaryKey: string[];
}

const CACHE_MS = 60_000;
const cache = new Map<string, { at: number; tables: Map<string, LakehouseTable> }>();

/** `name` backticked as Databricks quotes identifiers. */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new ConnectorError(`"${name}" cannot be used as a name here.`);
  return `\`${name.replaceAll("`", "``")}\``;
}

async function rows(config: DatabricksConfig, sql: string, signal?: AbortSignal): Promise<(string | null)[][]> {
  const result = await executeStatement(config, sql, { catalog: config.catalog, schema: config.schema }, signal);
  const out: (string | null)[][] = [];
  for await (const chunk of result.chunks()) out.push(...chunk);
  return out;
}

/** Every table of the configured schema, with columns and primary key. */
export async function schemaTables(config: DatabricksConfig, signal?: AbortSignal, fresh = false): Promise<Map<string, LakehouseTable>> {
  const key = `${config.baseUrl}\u0000${config.warehouseId}\u0000${config.token}\u0000${config.catalog}\u0000${config.schema}`;
  const cached = cache.get(key);
  if (!fresh && cached && Date.now() - cached.at < CACHE_MS) return cached.tables;
  const columns = await rows(
    config,
    "SELECT table_name, column_name, data_type, full_data_type, is_nullable FROM system.information_schema.columns WHERE table_catalog = :catalog AND table_schema = :schema ORDER BY table_name, ordinal_position",
    signal,
  );
  const keys = await rows(
    config,
    "SELECT table_name, column_name FROM system.information_schema.key_column_usage WHERE table_catalog = :catalog AND table_schema = :schema AND constraint_name IN (SELECT constraint_name FROM system.information_schema.table_constraints WHERE table_catalog = :catalog AND table_schema = :schema AND constraint_type = 'PRIMARY KEY') ORDER BY table_name, ordinal_position",
    signal,
  );
  const tables = new Map<string, LakehouseTable>();
  for (const [table, column, dataType, fullType, nullable] of columns) {
    const name = String(table);
    if (!tables.has(name)) tables.set(name, { name, columns: [], primaryKey: [] });
    tables.get(name)!.columns.push({ name: String(column), type: String(fullType ?? dataType).toUpperCase(), nullable: nullable !== "NO" });
  }
  for (const [table, column] of keys) tables.get(String(table))?.primaryKey.push(String(column));
  setBounded(cache, key, { at: Date.now(), tables });
  return tables;
}

export async function tableOf(config: DatabricksConfig, name: string, signal?: AbortSignal): Promise<LakehouseTable> {
  const table = (await schemaTables(config, signal)).get(name) ?? (await schemaTables(config, signal, true)).get(name);
  if (!table) throw new ConnectorError(`There is no table "${name}" in ${config.catalog}.${config.schema}.`);
  return table;
}
