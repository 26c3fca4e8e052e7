// The columns a model query returns, where they come cheap: on the SQL sources below a preview with
// LIMIT 0 only plans the query (no row is read, no warehouse job is billed), within the preview's
// deadline. Elsewhere, or when the source cannot answer, the columns are unknown (null) and the
// model is saved unchecked: an unreachable source must not block editing a model.
import "server-only";
import { querySource } from "./connectors";

const CHEAP_COLUMNS = new Set(["Postgresql", "MariaDB", "Clickhouse", "DuckDB", "Redshift"]);

export async function modelColumns(workspaceId: number, connectorId: number, connectorName: string, query: string): Promise<string[] | null> {
  if (!CHEAP_COLUMNS.has(connectorName)) return null;
  try {
    const { columns } = await querySource(workspaceId, connectorId, { query, limit: 0 });
    return columns.length > 0 ? columns.map((c) => c.name) : null;
  } catch {
    // The query's own problem is the preview's to tell (Preview rows); the key cannot be checked.
    return null;
  }
}

/** The 422 sentence when `primaryKey` is not one of `columns` (null when it is, or when they are unknown). */
export function primaryKeyProblem(primaryKey: string | null | undefined, columns: string[] | null): string | null {
  if (!primaryKey || !columns || columns.includes(primaryKey)) return null;
  const shown = columns.slice(0, 20).join(", ") + (columns.length > 20 ? `, … (${columns.length} columns)` : "");
  const sameButCase = columns.find((c) => c.toLowerCase() === primaryKey.toLowerCase());
  return `"${primaryKey}" is not a column of the query's result${sameButCase ? ` (did you mean "${sameButCase}"? names are case-sensitive)` : ""}; use one of: ${shown}`;
}
