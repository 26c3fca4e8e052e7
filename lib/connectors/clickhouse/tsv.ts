// ClickHouse's TabSeparated text, read as bytes: a String may hold any bytes (not only UTF-8), so
// lines and fields are cut and unescaped before anything is decoded.
import { ConnectorError } from "../shared/errors";

/** Longest line (one row) taken: a longer one fails the read instead of filling the memory. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A row longer than MAX_LINE_BYTES (a huge value, or a server that never ends its line). */
export class LineTooLongError extends ConnectorError {
  constructor(limit: number) {
    super(
      `A row of ClickHouse's answer is longer than ${Math.round(limit / (1024 * 1024))} MB, the most one row may hold: select fewer or shorter columns.`,
    );
  }
}

/**
 * The whole lines of a byte stream as they complete, one block per chunk: the lines joined by their
 * `\n`s, without the last one's (so a block holds at least one line, possibly empty). One await and
 * no object per line; the unfinished line's pieces are kept as a list and joined once, when its end
 * arrives (joining at each chunk is quadratic). A block may share the chunk's memory: use it (or
 * copy what you keep) before asking for the next.
 */
export async function* lineBlocks(chunks: AsyncIterable<Uint8Array>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Buffer> {
  let pieces: Buffer[] = [];
  let pending = 0;
  for await (const chunk of chunks) {
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const last = data.lastIndexOf(10);
    if (last === -1) {
      pending += data.length;
      if (pending > maxLineBytes) throw new LineTooLongError(maxLineBytes);
      // A copy: the chunk's memory may be reused by the stream.
      pieces.push(Buffer.from(data));
      continue;
    }
    const first = data.indexOf(10);
    if (pending + first > maxLineBytes) throw new LineTooLongError(maxLineBytes);
    // The lines between the first and the last newline are bounded by the chunk: looked at one by
    // one only when the chunk itself is longer than a line may be.
    if (last - first > maxLineBytes) {
      for (let nl = first, next = data.indexOf(10, first + 1); next !== -1 && nl < last; nl = next, next = data.indexOf(10, nl + 1)) {
        if (next - nl - 1 > maxLineBytes) throw new LineTooLongError(maxLineBytes);
      }
    }
    let block = data.subarray(0, last);
    if (pieces.length > 0) {
      pieces.push(block);
      block = Buffer.concat(pieces, pending + last);
      pieces = [];
      pending = 0;
    }
    if (last + 1 < data.length) {
      pending = data.length - last - 1;
      if (pending > maxLineBytes) throw new LineTooLongError(maxLineBytes);
      pieces.push(Buffer.from(data.subarray(last + 1)));
    }
    yield block;
  }
  if (pending > 0) throw new IncompleteLineError(Buffer.concat(pieces, pending));
}

/** The lines of a block (lineBlocks), each sharing its memory. */
export function blockLines(block: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = block.indexOf(10); nl !== -1; nl = block.indexOf(10, start)) {
    lines.push(block.subarray(start, nl));
    start = nl + 1;
  }
  lines.push(block.subarray(start));
  return lines;
}

/** The response ended inside a line: the server stopped mid-row (its error text, or a cut connection). */
export class IncompleteLineError extends Error {
  constructor(readonly line: Buffer) {
    super("The server's answer ended in the middle of a row.");
  }
}

/** The raw (still escaped) fields of a line. */
export function splitFields(line: Buffer): Buffer[] {
  const fields: Buffer[] = [];
  let start = 0;
  for (let tab = line.indexOf(9, start); tab !== -1; tab = line.indexOf(9, start)) {
    fields.push(line.subarray(start, tab));
    start = tab + 1;
  }
  fields.push(line.subarray(start));
  return fields;
}

const ESCAPES: Record<number, number> = {
  0x62: 0x08, // \b
  0x66: 0x0c, // \f
  0x72: 0x0d, // \r
  0x6e: 0x0a, // \n
  0x74: 0x09, // \t
  0x30: 0x00, // \0
  0x61: 0x07, // \a
  0x76: 0x0b, // \v
};

/**
 * A field's bytes with TabSeparated escapes resolved (`\t`, `\n`, `\\`, `\'`, `\0`…; an unknown
 * escape is the character itself, as ClickHouse reads it). Also the escapes of a quoted string.
 */
export function unescapeBytes(field: Buffer): Buffer {
  if (field.indexOf(92) === -1) return field;
  const out = Buffer.allocUnsafe(field.length);
  let n = 0;
  for (let i = 0; i < field.length; i++) {
    const b = field[i];
    if (b === 92 && i + 1 < field.length) {
      const next = field[++i];
      if (next === 0x78 && i + 2 < field.length && isHex(field[i + 1]) && isHex(field[i + 2])) {
        out[n++] = parseInt(String.fromCharCode(field[i + 1], field[i + 2]), 16);
        i += 2;
      } else out[n++] = ESCAPES[next] ?? next;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

function isHex(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102);
}

/** TabSeparated's NULL: a whole field `\N`. */
export function isNullField(field: Buffer): boolean {
  return field.length === 2 && field[0] === 92 && field[1] === 78;
}
