// The catalogs of SQL connectors: one stream per table, named `namespace.table` (a PostgreSQL
// schema, a MariaDB database). Sources and destinations describe the same tables; they differ in
// what the stream promises: a source's is read, a destination's is written in batches.
import type { Catalog, Stream } from "../types";
import { buildCatalog } from "./catalog";
import { requiredForWrite, tableJsonSchema, type ColumnInfo } from "./sql";

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
}

// Tables are read and written in place: the protocol's `fetch` action (APIs that create records say `create`).
const tableStream = (t: TableInfo, namespace: string) => ({
  name: t.name,
  action: "fetch" as const,
  url: `${namespace}.${t.name}`,
});

/** A SQL source's catalog: each table a stream to read, keyed by its primary key when it has one. */
export function sourceTablesCatalog(tables: Iterable<TableInfo>, namespace: string): Catalog {
  return buildCatalog(
    [...tables].map(
      (t): Stream => ({
        ...tableStream(t, namespace),
        json_schema: tableJsonSchema(t.columns),
        batch_support: false,
        batch_size: 0,
        request_method: "GET",
        ...(t.primaryKey.length > 0 ? { primary_key: t.primaryKey } : {}),
      }),
    ),
  );
}

/**
 * A SQL destination's catalog: each table a stream written in batches of `batchSize` rows per
 * statement group (larger batches amortise round trips; the ceiling is what one statement or COPY
 * may carry comfortably).
 */
export function destinationTablesCatalog(tables: Iterable<TableInfo>, namespace: string, batchSize = 1000): Catalog {
  return buildCatalog(
    [...tables].map(
      (t): Stream => ({
        ...tableStream(t, namespace),
        json_schema: tableJsonSchema(t.columns, requiredForWrite(t.columns)),
        batch_support: true,
        batch_size: batchSize,
        request_method: "POST",
        primary_key: t.primaryKey,
      }),
    ),
    { request_rate_concurrency: 4 },
  );
}
