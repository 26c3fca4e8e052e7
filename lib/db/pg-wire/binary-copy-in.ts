// COPY … FROM STDIN (FORMAT binary) input built field by field: every field is its length and its
// bytes, so nothing is escaped on our side or unescaped on the server's. Used for the engine's
// bookkeeping rows (records, states), whose text fields are whole rows of data.
import type { ClientBase } from "pg";
import { keepShape } from "@/lib/runtime/keep-shape";
import { copyIn } from "./copy-in";
import type { LineBatch } from "./line-batch";

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
const CHUNK = 64 * 1024;
/** Text up to this length is checked for ASCII and copied by hand. */
const ASCII_INLINE = 64;
const TEXT_OID = 25;
/**
 * Characters of lines joined into one piece by textLines. V8 puts a string past ~128 KB in its
 * large-object space, where joining 1,000 rows of 250 characters took ~12x as long as joining the
 * same rows as pieces of this size (bench/README.md, 2026-11-29 (g)).
 */
const PIECE_CHARS = 8192;
const UUID_OID = 2950;

/**
 * A text of lines joined by "\n", line i being its prefix then bodies[i]; the prefix is one for every
 * line or one per line. textLines writes it without ever holding it as one string.
 */
export interface TextLines {
  prefix: string | readonly string[];
  bodies: readonly string[];
}

/** Lines held in batches (line-batch.ts): line k is the prefix then line indices[k] of lines[k]. heldLines writes it from their bytes. */
export interface HeldLines {
  prefix: string;
  lines: readonly LineBatch[];
  indices: ArrayLike<number>;
}

/** The text of `lines` as one string (what textLines writes): for tests and short texts. */
export function linesText(lines: TextLines | HeldLines): string {
  if (!("bodies" in lines)) return Array.from(lines.indices, (i, k) => lines.prefix + lines.lines[k].line(i)).join("\n");
  const { prefix, bodies } = lines;
  if (typeof prefix === "string") return bodies.length === 0 ? "" : prefix + bodies.join(`\n${prefix}`);
  return bodies.map((body, i) => prefix[i] + body).join("\n");
}

/** True when `s` is 32 lowercase hex digits (an md5 as the engine writes it). */
export function isHex32(s: string): boolean {
  if (s.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

export class BinaryCopyInput {
  private readonly chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK);
  private at = 0;

  constructor() {
    this.room(SIGNATURE.length + 8);
    SIGNATURE.copy(this.buf, 0);
    this.buf.writeInt32BE(0, 11); // flags
    this.buf.writeInt32BE(0, 15); // header extension length
    this.at = 19;
  }

  /** Starts a row of `fields` fields. */
  row(fields: number): this {
    this.room(2);
    const { buf, at } = this;
    buf[at] = (fields >> 8) & 0xff;
    buf[at + 1] = fields & 0xff;
    this.at = at + 2;
    return this;
  }

  int4(value: number): this {
    this.room(8);
    const { buf, at } = this;
    buf[at] = 0;
    buf[at + 1] = 0;
    buf[at + 2] = 0;
    buf[at + 3] = 4;
    buf[at + 4] = (value >>> 24) & 0xff;
    buf[at + 5] = (value >>> 16) & 0xff;
    buf[at + 6] = (value >>> 8) & 0xff;
    buf[at + 7] = value & 0xff;
    this.at = at + 8;
    return this;
  }

  /** Text (also enums and json, whose binary form is their text; not jsonb); null and undefined are NULL. */
  text(value: string | null | undefined): this {
    if (value === null || value === undefined) {
      this.room(4);
      this.buf.writeInt32BE(-1, this.at);
      this.at += 4;
      return this;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a long text (a block of records) is measured
    // instead, so its buffer is not three times its size.
    this.room(4 + (value.length <= ASCII_INLINE ? value.length * 3 : Buffer.byteLength(value, "utf8")));
    const { buf, at } = this;
    const start = at + 4;
    // Short ASCII text (keys, fingerprints, statuses: three a state, a million states a run) is
    // copied here; Buffer.write's checks cost more than the copy itself.
    let written = -1;
    if (value.length <= ASCII_INLINE) {
      let i = 0;
      for (; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) break;
        buf[start + i] = c;
      }
      if (i === value.length) written = i;
    }
    if (written < 0) written = buf.write(value, start, "utf8");
    buf[at] = (written >>> 24) & 0xff;
    buf[at + 1] = (written >>> 16) & 0xff;
    buf[at + 2] = (written >>> 8) & 0xff;
    buf[at + 3] = written & 0xff;
    this.at = start + written;
    return this;
  }

  /**
   * A text field of lines (a block of records' keys or rows), written in pieces of PIECE_CHARS into
   * the chunks; the field's length is filled in once its bytes are written.
   */
  textLines(lines: TextLines): this {
    const { prefix, bodies } = lines;
    this.room(4);
    const lengthOf = { buf: this.buf, at: this.at };
    this.at += 4;
    let written = 0;
    let from = 0;
    let chars = 0;
    const piece = (end: number) => {
      if (end === from) return;
      const part = bodies.slice(from, end);
      // The piece's start written on its own: prepended, it made a two-part string that writing
      // first copies into one, a second copy of every row (~80 MB a million-row sync).
      const start = typeof prefix === "string" ? (from === 0 ? prefix : `\n${prefix}`) : from === 0 ? "" : "\n";
      if (start !== "") written += this.put(start);
      written += this.put(typeof prefix === "string" ? part.join(`\n${prefix}`) : part.map((body, k) => prefix[from + k] + body).join("\n"));
      from = end;
      chars = 0;
    };
    for (let i = 0; i < bodies.length; i++) {
      chars += bodies[i].length + 2;
      if (chars >= PIECE_CHARS) piece(i + 1);
    }
    piece(bodies.length);
    lengthOf.buf.writeInt32BE(written, lengthOf.at);
    return this;
  }

  /** A text field of held lines, each copied from its batch's bytes, never made a string. */
  heldLines({ prefix, lines, indices }: HeldLines): this {
    this.room(4);
    const lengthOf = { buf: this.buf, at: this.at };
    this.at += 4;
    const head = Buffer.from(prefix, "utf8");
    let written = 0;
    for (let k = 0; k < indices.length; k++) {
      const batch = lines[k];
      const i = indices[k];
      const rows = prefix === "c" ? batch.recordRows : null;
      if (rows) {
        // A run of the batch's lines in order: their rows as the fingerprint thread wrote them, one copy.
        let last = k;
        while (last + 1 < indices.length && lines[last + 1] === batch && indices[last + 1] === indices[last] + 1) last++;
        const bytes = batch.recordRunBytes(i, indices[last]);
        this.room(1 + bytes);
        if (k > 0) this.buf[this.at++] = 0x0a;
        this.at += batch.copyRecordRun(i, indices[last], this.buf, this.at);
        written += bytes + (k > 0 ? 1 : 0);
        k = last;
        continue;
      }
      this.room(1 + head.length + batch.maxBytes(i));
      const { buf } = this;
      let at = this.at;
      if (k > 0) buf[at++] = 0x0a;
      for (let b = 0; b < head.length; b++) buf[at++] = head[b];
      at += batch.copyLine(i, buf, at);
      written += at - this.at;
      this.at = at;
    }
    lengthOf.buf.writeInt32BE(written, lengthOf.at);
    return this;
  }

  /** Bytes of `text` in UTF-8 at the end, with no length before them; how many. */
  private put(text: string): number {
    // Up to 3 bytes a UTF-16 unit; a text past a chunk is measured, so its buffer is not three times its size.
    this.room(text.length * 3 <= CHUNK ? text.length * 3 : Buffer.byteLength(text, "utf8"));
    const written = this.buf.write(text, this.at, "utf8");
    this.at += written;
    return written;
  }

  /**
   * A one-dimensional text[] (the column's element type must be text). Array binary form: dimensions,
   * a has-nulls flag, the element type's oid, each dimension's length and lower bound, then each
   * element as length and bytes.
   */
  textArray(values: readonly string[]): this {
    let most = 20;
    for (const v of values) most += 4 + v.length * 3;
    this.room(4 + most);
    const start = this.at;
    this.at += 4;
    this.arrayHeader(values.length, false, TEXT_OID);
    for (const v of values) this.text(v);
    this.buf.writeInt32BE(this.at - start - 4, start);
    return this;
  }

  /**
   * A one-dimensional uuid[] of `count` elements, each written by `digestAt` as 16 bytes at `at` (true)
   * or NULL (false): digests copied straight from where they were computed, with no text in between.
   */
  digestArray(count: number, digestAt: (j: number, buf: Buffer, at: number) => boolean): this {
    this.room(4 + 20 + count * 20);
    const start = this.at;
    this.at += 4;
    this.arrayHeader(count, false, UUID_OID);
    const { buf } = this;
    let at = this.at;
    let nulls = false;
    for (let j = 0; j < count; j++) {
      if (digestAt(j, buf, at + 4)) {
        buf.writeInt32BE(16, at);
        at += 20;
      } else {
        buf.writeInt32BE(-1, at);
        at += 4;
        nulls = true;
      }
    }
    if (nulls) buf.writeInt32BE(1, start + 8);
    this.at = at;
    buf.writeInt32BE(this.at - start - 4, start);
    return this;
  }

  private arrayHeader(length: number, nulls: boolean, oid: number): void {
    const { buf, at } = this;
    buf.writeInt32BE(1, at); // dimensions
    buf.writeInt32BE(nulls ? 1 : 0, at + 4);
    buf.writeInt32BE(oid, at + 8);
    buf.writeInt32BE(length, at + 12);
    buf.writeInt32BE(1, at + 16); // lower bound
    this.at = at + 20;
  }

  /** jsonb: its binary form is a version byte (1) and the JSON text. */
  jsonb(value: string | undefined): this {
    if (value === undefined) return this.text(undefined);
    this.room(5 + value.length * 3);
    this.buf[this.at + 4] = 1;
    const written = this.buf.write(value, this.at + 5, "utf8");
    this.buf.writeInt32BE(written + 1, this.at);
    this.at += 5 + written;
    return this;
  }

  /** Runs `COPY … FROM STDIN (FORMAT binary)` with the rows so far as its whole input. */
  async copy(client: ClientBase, sql: string): Promise<void> {
    this.room(2);
    this.buf.writeInt16BE(-1, this.at); // trailer
    this.at += 2;
    this.flush();
    await copyIn(client, `${sql} (FORMAT binary)`, this.chunks);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    this.flush();
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK, bytes));
  }

  private flush(): void {
    if (this.at > 0) this.chunks.push(this.buf.subarray(0, this.at));
    this.at = 0;
  }
}

// Its map outlives the batches (keep-shape.ts).
keepShape(new BinaryCopyInput());
