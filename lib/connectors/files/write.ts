// Rows into a local file a destination then uploads: CSV (csv-stringify: a header line, RFC 4180
// quoting) or JSON lines (one exact JSON object per line). Values as our SQL destinations write
// text: strings as they are, numbers exact (JsonNumber's digits), objects and arrays as JSON, null
// as an empty CSV field.
import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import type { Row } from "../types";
import { exactJson, scalarText } from "../shared/values";
import { makeCopiesDir } from "./fetch";

export type WriteFormat = "csv" | "jsonl";

export const CONTENT_TYPES: Record<WriteFormat, string> = {
  csv: "text/csv; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8",
};

export interface WrittenFile {
  /** The file's path (inside a private temporary directory). */
  path: string;
  bytes: number;
  rows: number;
  contentType: string;
  /** Removes the file and its directory. */
  remove(): Promise<void>;
}

/**
 * The CSV columns: `declared` first (the stream's fields, as the mapping names them), then any other
 * field the rows carry, in the order first seen.
 */
export function csvColumns(rows: readonly Row[], declared: readonly string[] = []): string[] {
  const columns = [...declared];
  const seen = new Set(columns);
  for (const row of rows)
    for (const key of Object.keys(row))
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
  return columns;
}

const csvField = (value: unknown) => (value === null || value === undefined ? "" : scalarText(value));

function lines(rows: readonly Row[], format: WriteFormat, columns: readonly string[]): Readable {
  if (format === "jsonl") return Readable.from(rows.map((row) => `${exactJson(row)}\n`));
  const csv = stringify({ header: true, columns: [...columns], cast: { boolean: (v) => (v ? "true" : "false") } });
  return Readable.from(rows.map((row) => columns.map((c) => csvField(row[c])))).pipe(csv);
}

/** Writes `rows` into a new file named `name` in a private temporary directory. */
export async function writeRowsFile(
  rows: readonly Row[],
  format: WriteFormat,
  options: { name?: string; columns?: readonly string[] } = {},
): Promise<WrittenFile> {
  const dir = await makeCopiesDir();
  const file = path.join(dir.dir, path.basename(options.name ?? `rows.${format === "csv" ? "csv" : "jsonl"}`));
  try {
    const columns = csvColumns(rows, options.columns);
    await pipeline(lines(rows, format, columns), createWriteStream(file, { flags: "wx", mode: 0o600 }));
    return { path: file, bytes: (await stat(file)).size, rows: rows.length, contentType: CONTENT_TYPES[format], remove: dir.remove };
  } catch (err) {
    await dir.remove();
    throw err;
  }
}
