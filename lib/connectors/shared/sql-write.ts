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

/**
 * A SQL destination's catalog: one stream per table (`namespace.table`), written in batches of
 * `batchSize` rows per statement group (larger batches amortise round trips; the ceiling is what one
 * statement or COPY may carry comfortably).
 */
export function tablesCatalog(tables: Iterable<TableInfo>, namespace: string, batchSize = 1000): Catalog {
  return buildCatalog(
    [...tables].map((t) => ({
      name: t.name,
      action: "fetch" as const,
      url: `${namespace}.${t.name}`,
      json_schema: tableJsonSchema(t.columns, requiredForWrite(t.columns)),
      batch_support: true,
      batch_size: batchSize,
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

/** The column set of a payload: which columns are written, in a stable order, and whether all exist. */
interface Shape {
  columns: string[];
  /** Identifies the column set inside one write. */
  id: string;
  /** Why this column set cannot be written, if it cannot. */
  problem?: string;
}

/**
 * Shapes by the payload's own key order. Payloads of one mapping share their keys, so the sorting and
 * checking happen once per write instead of once per record.
 */
class Shapes {
  private readonly byKeys = new Map<string, Shape>();
  private readonly byId = new Map<string, Shape>();
  private readonly known: Set<string>;
  private readonly keyShape: Shape;

  constructor(private readonly table: TableInfo) {
    this.known = new Set(table.columns.map((c) => c.name));
    this.keyShape = { columns: table.primaryKey, id: "\u0001key" };
  }

  of(record: WriteRecord): Shape {
    // A delete needs only the key.
    if (record.action === "delete") return this.keyShape;
    const keys = Object.keys(record.payload);
    const raw = keys.join("\u0000");
    let shape = this.byKeys.get(raw);
    if (!shape) {
      const columns = [...keys].sort();
      const unknown = keys.filter((k) => !this.known.has(k));
      let problem: string | undefined;
      if (unknown.length > 0) {
        problem = `Unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => `"${c}"`).join(", ")} for table "${this.table.name}".`;
      } else if (keys.length === 0) problem = "The payload is empty: there is nothing to write.";
      const id = columns.join("\u0000");
      // Payloads with the same columns in another order share one shape, so they share a statement.
      shape = this.byId.get(id) ?? { columns, id, problem };
      this.byId.set(id, shape);
      this.byKeys.set(raw, shape);
    }
    return shape;
  }
}

/** A record that can never succeed as sent fails up front, without touching the database. */
function validateRecord(table: TableInfo, record: WriteRecord, shape: Shape): string | undefined {
  if (shape.problem) return shape.problem;
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

interface Group {
  action: WriteAction;
  columns: string[];
  records: WriteRecord[];
}

function groupRecords(records: WriteRecord[], shapes: Map<WriteRecord, Shape>): Group[] {
  // Keyed by action, then by the shape object itself: no string built per record.
  const groups = new Map<WriteAction, Map<Shape, Group>>();
  const ordered: Group[] = [];
  for (const record of records) {
    const shape = shapes.get(record) as Shape;
    let byShape = groups.get(record.action);
    if (!byShape) groups.set(record.action, (byShape = new Map()));
    let group = byShape.get(shape);
    if (!group) {
      group = { action: record.action, columns: shape.columns, records: [] };
      byShape.set(shape, group);
      ordered.push(group);
    }
    group.records.push(record);
  }
  return ordered;
}

/**
 * Writes `records` through `writer` inside the caller's transaction. Errors that are not about a
 * record (connection lost, timeout) are rethrown: the caller rolls back and retries the batch.
 */
export async function writeWithIsolation(table: TableInfo, records: WriteRecord[], writer: SqlBatchWriter): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = [];
  const valid: WriteRecord[] = [];
  const shapes = new Shapes(table);
  const shapeOf = new Map<WriteRecord, Shape>();
  for (const record of records) {
    const shape = shapes.of(record);
    const problem = validateRecord(table, record, shape);
    if (problem) outcomes.push({ key: record.key, ok: false, error: problem, retryable: false });
    else {
      valid.push(record);
      shapeOf.set(record, shape);
    }
  }

  const attempt = async (slice: WriteRecord[]): Promise<void> => {
    if (slice.length === 0) return;
    await writer.savepoint();
    let misses = new Map<string, string>();
    try {
      for (const group of groupRecords(slice, shapeOf)) {
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
