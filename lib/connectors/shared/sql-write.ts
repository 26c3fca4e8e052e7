// The write path shared by SQL destinations: check each record against the live table, write the
// batch in as few statements as possible, and when a statement fails, bisect inside savepoints so
// one bad row fails alone while its neighbours are written. One outcome per record, always.
import type { Catalog, WriteAction, WriteOutcome, WriteRecord } from "../types";
import { buildCatalog } from "./catalog";
import { requiredForWrite, tableJsonSchema, type ColumnInfo } from "./sql";
import { errorMessage } from "./errors";

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
}

/** A SQL destination's catalog: one stream per table (`namespace.table`), written in batches. */
export function tablesCatalog(tables: Iterable<TableInfo>, namespace: string): Catalog {
  return buildCatalog(
    [...tables].map((t) => ({
      name: t.name,
      url: `${namespace}.${t.name}`,
      json_schema: tableJsonSchema(t.columns, requiredForWrite(t.columns)),
      batch_support: true,
      batch_size: 1000,
      request_method: "POST" as const,
      primary_key: t.primaryKey,
    })),
    { request_rate_concurrency: 4 },
  );
}

/** What a dialect must provide; the session is one connection inside an open transaction. */
export interface SqlBatchWriter {
  savepoint(): Promise<void>;
  rollbackToSavepoint(): Promise<void>;
  releaseSavepoint(): Promise<void>;
  /**
   * Writes records that share one action and one column list. Returns the keys of records that
   * matched nothing (an update of a missing row) with the reason; throws when the statement fails.
   */
  writeGroup(table: TableInfo, action: WriteAction, columns: string[], records: WriteRecord[]): Promise<Map<string, string>>;
  /** True when the error is about the data (constraint, type, value), so bisecting can isolate it. */
  isRecordError(err: unknown): boolean;
  describeError(err: unknown): string;
}

/** Columns actually written for a record: delete needs only the key. */
function columnsOf(table: TableInfo, record: WriteRecord): string[] {
  return record.action === "delete" ? table.primaryKey : Object.keys(record.payload).sort();
}

/** A record that can never succeed as sent fails up front, without touching the database. */
function validateRecord(table: TableInfo, record: WriteRecord): string | undefined {
  const known = new Set(table.columns.map((c) => c.name));
  if (record.action !== "delete") {
    const unknown = Object.keys(record.payload).filter((k) => !known.has(k));
    if (unknown.length > 0) {
      return `Unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => `"${c}"`).join(", ")} for table "${table.name}".`;
    }
    if (Object.keys(record.payload).length === 0) return "The payload is empty: there is nothing to write.";
  }
  if (record.action !== "insert") {
    if (table.primaryKey.length === 0) {
      return `Table "${table.name}" has no primary key, so it only supports inserts (not ${record.action}).`;
    }
    const missing = table.primaryKey.filter((k) => record.payload[k] === undefined || record.payload[k] === null);
    if (missing.length > 0) {
      return `The payload has no value for the primary key column${missing.length > 1 ? "s" : ""} ${missing.map((c) => `"${c}"`).join(", ")}, needed for ${record.action}.`;
    }
  }
  return undefined;
}

function groupRecords(table: TableInfo, records: WriteRecord[]): { action: WriteAction; columns: string[]; records: WriteRecord[] }[] {
  const groups = new Map<string, { action: WriteAction; columns: string[]; records: WriteRecord[] }>();
  for (const record of records) {
    const columns = columnsOf(table, record);
    const id = `${record.action}\u0000${columns.join("\u0000")}`;
    const group = groups.get(id) ?? { action: record.action, columns, records: [] };
    group.records.push(record);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/**
 * Writes `records` through `writer` inside the caller's transaction. Errors that are not about a
 * record (connection lost, timeout) are rethrown: the caller rolls back and retries the batch.
 */
export async function writeWithIsolation(table: TableInfo, records: WriteRecord[], writer: SqlBatchWriter): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = [];
  const valid: WriteRecord[] = [];
  for (const record of records) {
    const problem = validateRecord(table, record);
    if (problem) outcomes.push({ key: record.key, ok: false, error: problem, retryable: false });
    else valid.push(record);
  }

  const attempt = async (slice: WriteRecord[]): Promise<void> => {
    if (slice.length === 0) return;
    await writer.savepoint();
    let misses = new Map<string, string>();
    try {
      for (const group of groupRecords(table, slice)) {
        const groupMisses = await writer.writeGroup(table, group.action, group.columns, group.records);
        misses = new Map([...misses, ...groupMisses]);
      }
      await writer.releaseSavepoint();
    } catch (err) {
      if (!writer.isRecordError(err)) throw err;
      await writer.rollbackToSavepoint();
      await writer.releaseSavepoint();
      if (slice.length === 1) {
        outcomes.push({ key: slice[0].key, ok: false, error: writer.describeError(err), retryable: false });
        return;
      }
      // Halving finds k bad rows among n in about 2·k·log2(n) statements instead of n.
      const middle = Math.ceil(slice.length / 2);
      await attempt(slice.slice(0, middle));
      await attempt(slice.slice(middle));
      return;
    }
    for (const record of slice) {
      const miss = misses.get(record.key);
      outcomes.push(miss ? { key: record.key, ok: false, error: miss, retryable: false } : { key: record.key, ok: true });
    }
  };

  await attempt(valid);
  return outcomes;
}

/** Every record failed for a reason outside the records themselves (the batch may be retried). */
export function failAll(records: WriteRecord[], err: unknown, describe: (err: unknown) => string = errorMessage): WriteOutcome[] {
  const error = describe(err);
  return records.map((r) => ({ key: r.key, ok: false, error, retryable: true }));
}

/** Stable string of a primary-key tuple, comparing values loosely (1 and "1" are the same key). */
export function keyOf(row: Record<string, unknown>, primaryKey: string[]): string {
  return JSON.stringify(primaryKey.map((k) => (row[k] === null || row[k] === undefined ? null : String(row[k]))));
}
