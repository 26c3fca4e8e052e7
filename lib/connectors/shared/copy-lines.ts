// A COPY text line of a text-rows source read back into the row its JSON path would have given.
import { copyUnescape } from "@/lib/db/pg-wire/text-copy";
import type { Row, TextColumn } from "../types";
import { ConnectorError } from "./errors";

/** The fields of `line` (still escaped), which must be `width`. */
export function copyFields(line: string, width: number): string[] {
  // One field without a tab (what a computed column reads of a line): split() costs more than the rest.
  const fields = width === 1 && !line.includes("\t") ? [line] : line.split("\t");
  if (fields.length !== width) throw new ConnectorError(`A stored row has ${fields.length} fields where ${width} columns were read.`);
  return fields;
}

/** Splits `line` into one field per column; `value` turns each non-null field's text into the JSON path's value. */
export function decodeCopyLine(line: string, cols: readonly TextColumn[], value: (text: string, col: TextColumn) => unknown): Row {
  const fields = copyFields(line, cols.length);
  const row: Row = {};
  for (let i = 0; i < cols.length; i++) {
    const text = copyUnescape(fields[i]);
    row[cols[i].name] = text === null ? null : value(text, cols[i]);
  }
  return row;
}
