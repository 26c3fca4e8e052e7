// A COPY text line of a text-rows source read back into the row its JSON path would have given.
import { copyUnescape } from "@/lib/db/pg-wire/text-copy";
import type { Row, TextColumn } from "../types";
import { ConnectorError } from "./errors";

/** Splits `line` into one field per column; `value` turns each non-null field's text into the JSON path's value. */
export function decodeCopyLine(line: string, cols: readonly TextColumn[], value: (text: string, col: TextColumn) => unknown): Row {
  const fields = line.split("\t");
  if (fields.length !== cols.length) throw new ConnectorError(`A stored row has ${fields.length} fields where ${cols.length} columns were read.`);
  const row: Row = {};
  for (let i = 0; i < cols.length; i++) {
    const text = copyUnescape(fields[i]);
    row[cols[i].name] = text === null ? null : value(text, cols[i]);
  }
  return row;
}
