// MariaDB text-protocol row packets as COPY text lines, made straight from the packets' bytes for
// the pass-through read (text-rows.ts). mysql2 would make a string or a number of every field, and
// the line would then be built again out of those: on this path that was most of the worker's
// garbage collection. Here each field's bytes are copied with COPY's escapes into one scratch buffer
// and a row becomes one string. Values whose text mysql2 changes when it reads them (FLOAT, DOUBLE,
// ZEROFILL integers) are read by mysql2's own packet methods and printed, so every line is exactly
// the one mysql2's values gave: earlier runs' fingerprints still match.
import { Types, type FieldPacket } from "mysql2";
import { COPY_NULL } from "@/lib/db/pg-wire/text-copy";

/** The part of mysql2's Packet a row is read through (its generated row parsers read it so). */
export interface RowPacket {
  buffer: Buffer;
  offset: number;
  readLengthCodedNumber(): number | null;
  parseLengthCodedFloat(): number | null;
  parseLengthCodedIntNoBigCheck(): number | null;
  parseLengthCodedInt(supportBigNumbers: boolean): number | string | null;
}

/** How a field becomes COPY text. */
const Field = {
  /** Its bytes, escaped. */
  Bytes: 0,
  /** Its bytes, escaped, then "+00": TIMESTAMP is stored in UTC and the session runs in UTC. */
  Timestamp: 1,
  /** mysql2's number of a FLOAT or DOUBLE, printed. */
  Float: 2,
  /** mysql2's number of a ZEROFILL integer (INT and smaller), printed. */
  ZerofillInt: 3,
  /** mysql2's number (or digits, past 2^53) of a ZEROFILL BIGINT, printed. */
  ZerofillBigint: 4,
} as const;
type Field = (typeof Field)[keyof typeof Field];

const ZEROFILL_FLAG = 64;
const BACKSLASH = 0x5c;
const TAB = 0x09;
const NL = 0x0a;
const CR = 0x0d;

function fieldOf(f: FieldPacket): Field | undefined {
  const zerofill = typeof f.flags === "number" && (f.flags & ZEROFILL_FLAG) !== 0;
  switch (f.columnType) {
    case Types.FLOAT:
    case Types.DOUBLE:
      return Field.Float;
    case Types.TINY:
    case Types.SHORT:
    case Types.LONG:
    case Types.INT24:
      return zerofill ? Field.ZerofillInt : Field.Bytes;
    case Types.LONGLONG:
      return zerofill ? Field.ZerofillBigint : Field.Bytes;
    case Types.TIMESTAMP:
      return Field.Timestamp;
    case Types.DECIMAL:
    case Types.NEWDECIMAL:
    case Types.DATE:
    case Types.NEWDATE:
    case Types.DATETIME:
      return Field.Bytes;
    default:
      // Text: mysql2 decodes it by the column's character set; its bytes are the same text only in UTF-8.
      return f.encoding === "utf8" ? Field.Bytes : undefined;
  }
}

/** Reads row packets of one result set as COPY lines (`next`, as mysql2's own row parsers are called). */
export class RowLines {
  private out = Buffer.allocUnsafe(64 * 1024);

  private constructor(private readonly fields: readonly Field[]) {}

  /** A reader for rows of these columns (all of which text-rows.ts offers), or undefined when some text column is not UTF-8. */
  static of(columns: readonly FieldPacket[]): RowLines | undefined {
    const fields: Field[] = [];
    for (const c of columns) {
      const field = fieldOf(c);
      if (field === undefined) return undefined;
      fields.push(field);
    }
    return new RowLines(fields);
  }

  /** The row packet's fields as one COPY line (no newline). */
  next(packet: RowPacket): string {
    const fields = this.fields;
    let pos = 0;
    for (let i = 0; i < fields.length; i++) {
      if (i > 0) this.out[pos++] = TAB;
      const field = fields[i];
      if (field === Field.Float || field === Field.ZerofillInt || field === Field.ZerofillBigint) {
        const value =
          field === Field.Float
            ? packet.parseLengthCodedFloat()
            : field === Field.ZerofillInt
              ? packet.parseLengthCodedIntNoBigCheck()
              : packet.parseLengthCodedInt(true);
        pos = value === null ? this.writeNull(pos) : this.writeAscii(String(value), pos);
        continue;
      }
      const length = packet.readLengthCodedNumber();
      if (length === null) {
        pos = this.writeNull(pos);
        continue;
      }
      const start = packet.offset;
      packet.offset += length;
      // Room for every byte escaped, and for "+00" and the next tab.
      this.reserve(pos + 2 * length + 4);
      pos = this.writeEscaped(packet.buffer, start, start + length, pos);
      if (field === Field.Timestamp) pos = this.writeAscii("+00", pos);
    }
    return this.out.toString("utf8", 0, pos);
  }

  private writeNull(pos: number): number {
    return this.writeAscii(COPY_NULL, pos);
  }

  /** Text without COPY's special characters (numbers, \N, +00). */
  private writeAscii(text: string, pos: number): number {
    this.reserve(pos + text.length + 1);
    for (let i = 0; i < text.length; i++) this.out[pos++] = text.charCodeAt(i);
    return pos;
  }

  /** Bytes with COPY's escapes for backslash, tab, newline and carriage return (UTF-8 never uses those bytes inside a character). */
  private writeEscaped(src: Buffer, start: number, end: number, pos: number): number {
    const out = this.out;
    for (let i = start; i < end; i++) {
      const b = src[i];
      if (b > CR && b !== BACKSLASH) {
        out[pos++] = b;
        continue;
      }
      if (b === BACKSLASH) {
        out[pos++] = BACKSLASH;
        out[pos++] = BACKSLASH;
      } else if (b === TAB) {
        out[pos++] = BACKSLASH;
        out[pos++] = 0x74; // t
      } else if (b === NL) {
        out[pos++] = BACKSLASH;
        out[pos++] = 0x6e; // n
      } else if (b === CR) {
        out[pos++] = BACKSLASH;
        out[pos++] = 0x72; // r
      } else {
        out[pos++] = b;
      }
    }
    return pos;
  }

  private reserve(size: number): void {
    if (size <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(size, 2 * this.out.length));
    this.out.copy(grown);
    this.out = grown;
  }
}
