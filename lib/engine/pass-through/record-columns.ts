// The columns a run's text records were read with (sync_runs.record_columns): a record kept as its
// source's COPY line (a "c" line of sync_record_blocks.rows, lib/engine/records/format.ts) is decoded with them, by the source connector that
// wrote it, into the row the JSON path would have stored.
import { loadSource } from "@/lib/connectors/registry";
import type { Row, TextColumn } from "@/lib/connectors/types";

export interface RecordColumns {
  connector: string;
  columns: TextColumn[];
  /**
   * The lines were mapped, not passed through (pass-through/plan.ts): the records read back alike, and
   * every attempt of a run takes the path its first one claimed (run-counters.ts:claimRecordColumns).
   */
  mapped?: true;
}

function parse(stored: unknown): RecordColumns | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { connector, columns } = stored as Partial<RecordColumns>;
  return typeof connector === "string" && Array.isArray(columns) ? { connector, columns } : undefined;
}

/** Same stored value, same decoder: a page of records parses the run's columns once. */
const cache = new WeakMap<object, RecordColumns | null>();

/** Turns a record's text line into its row; null when the run's columns are missing or do not fit. */
export type RecordDecoder = (rowText: string) => Row | null;

const NO_DECODER: RecordDecoder = () => null;

/**
 * The decoder of a run's text records (`stored`: its record_columns), by the source connector that
 * wrote them, whose implementation is imported on first use (lib/connectors/catalogue.ts).
 */
export async function recordDecoder(stored: unknown): Promise<RecordDecoder> {
  let columns = typeof stored === "object" && stored !== null ? cache.get(stored) : null;
  if (columns === undefined) {
    columns = parse(stored) ?? null;
    cache.set(stored as object, columns);
  }
  if (!columns) return NO_DECODER;
  const source = (await loadSource(columns.connector).catch(() => undefined))?.textRows;
  if (!source) return NO_DECODER;
  const { columns: textColumns } = columns;
  return (rowText) => {
    try {
      // As the JSON path stored it (the value model: NaN and the infinities as their text).
      return source.decode(rowText, textColumns);
    } catch {
      return null;
    }
  };
}
