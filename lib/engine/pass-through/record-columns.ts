// The columns a run's text records were read with (sync_runs.record_columns): a record kept as its
// source's COPY line (a "c" line of sync_record_blocks.rows, lib/engine/records/format.ts) is decoded with them, by the source connector that
// wrote it, into the row the JSON path would have stored.
import { getSource } from "@/lib/connectors/registry";
import type { Row, TextColumn } from "@/lib/connectors/types";

export interface RecordColumns {
  connector: string;
  columns: TextColumn[];
}

function parse(stored: unknown): RecordColumns | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { connector, columns } = stored as Partial<RecordColumns>;
  return typeof connector === "string" && Array.isArray(columns) ? { connector, columns } : undefined;
}

/** Same stored value, same decoder: a page of records parses the run's columns once. */
const cache = new WeakMap<object, RecordColumns | null>();

/** The row of a record stored as text; null when the run's columns are missing or do not fit. */
export function decodeRecordText(rowText: string, stored: unknown): Row | null {
  let columns = typeof stored === "object" && stored !== null ? cache.get(stored) : null;
  if (columns === undefined) {
    columns = parse(stored) ?? null;
    cache.set(stored as object, columns);
  }
  if (!columns) return null;
  try {
    const source = getSource(columns.connector).textRows;
    if (!source) return null;
    // As the JSON path stored it (the value model: NaN and the infinities as their text).
    return source.decode(rowText, columns.columns);
  } catch {
    return null;
  }
}

/** A stored record as the API shows it: its JSON, or its text line decoded with the run's columns. */
export function storedRecord<T>(record: T | null, rowText: string | null, recordColumns: unknown): T | Row | null {
  if (record !== null) return record;
  return rowText === null ? null : decodeRecordText(rowText, recordColumns);
}
