// COPY text lines held as the CopyData messages they arrived in. PostgreSQL sends a text COPY one
// message a row: a 5-byte header, the line, a newline. Held as strings, a pass-through full sync
// decoded each of its million lines, joined and encoded it twice more (the destination's COPY input,
// the record block) and cloned it to the fingerprint thread, and the scavenger copied every one while
// its batch was in flight (bench/README.md, (t)). Held as bytes, outside V8's heap (a batch's messages
// in one shared buffer, `join`), the destination's input is the source's own messages (a run of lines
// one slice), the fingerprint thread reads the bytes where they are and writes the record rows beside
// them, and a line becomes a string only where one is read (a refused batch, a mapping, the cursor;
// keys a batch at a time, `fields`). Sources whose lines are made as strings (MariaDB, ClickHouse)
// keep them: `ofTexts`.
import { keepShape } from "@/lib/runtime/keep-shape";
import { sharedBuffers } from "./shared-buffers";

/** Type (1 byte) and length (4 bytes, counting itself) of a message. */
export const HEADER = 5;
const COPY_DATA = 0x64; // d
const NEWLINE = 0x0a;
const TAB = 0x09;
/** Characters of texts joined into one CopyData message by CopyLines.messages (as text-copy.ts's pieces). */
const PIECE_CHARS = 64 * 1024;

/** Where each line's message is: its buffer, the line's first byte (after the header), and one past its newline. */
export interface LineBytes {
  readonly chunks: readonly Buffer[];
  readonly chunkOf: Int32Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

const NONE: readonly Buffer[] = [];

export class LineBatch implements Iterable<string> {
  /**
   * Each line as a record block stores it ("c", the line, a newline), side by side in line order,
   * once the fingerprint thread wrote them (packed batches only): records copy a run of lines at once.
   */
  recordRows: Buffer | null = null;

  /** Given back to the shared pool (release): reading it now would read another batch's bytes. */
  private released = false;
  /** The shared buffers the batch holds its messages and their places in (join), given back with it. */
  private pooled: readonly Buffer[] = NONE;
  /** Never given back (pin). */
  private pinned = false;

  private constructor(
    readonly length: number,
    /** The lines as strings (a source that made them so), or null: held as bytes. */
    private readonly texts: readonly string[] | null,
    /** The lines as messages (texts null). */
    private readonly held: LineBytes | null,
    /** The messages fill one buffer back to back from its start (join, compact): see recordRowStart. */
    readonly packed = false,
  ) {}

  /** The lines as messages (null: held as texts). */
  get bytes(): LineBytes | null {
    if (this.released) throw new Error("A batch's lines were read after the batch was recorded.");
    return this.held;
  }

  /**
   * Gives the batch's shared buffers back to the pool (shared-buffers.ts) once nothing reads the batch
   * again: it is recorded, or none of its lines is sent (a re-run's few are copied out). Reading it
   * after throws. A pinned batch, or one not joined from the pool, is left to the garbage collector.
   */
  release(): void {
    if (this.released || this.pinned || !this.held) return;
    this.released = true;
    for (const buffer of this.pooled) sharedBuffers.give(buffer);
    if (this.recordRows) sharedBuffers.give(this.recordRows);
    this.recordRows = null;
  }

  /**
   * The batch's buffers are never reused: something may still read them that the process does not
   * wait for (a destination's COPY that failed midway may still have writes queued on its socket).
   */
  pin(): void {
    if (this.pinned || this.released || !this.held) return;
    this.pinned = true;
    for (const buffer of this.pooled) sharedBuffers.forget(buffer);
    if (this.recordRows) sharedBuffers.forget(this.recordRows);
  }

  /** Bytes of all the record rows of a packed batch (the size of recordRows). */
  recordRowsSize(): number {
    return this.length === 0 ? 0 : this.recordRowEnd(this.length - 1);
  }

  /** Bytes of the record rows of lines first to last, joined by their newlines (not the last one). */
  recordRunBytes(first: number, last: number): number {
    return this.recordRowEnd(last) - 1 - this.recordRowStart(first);
  }

  /** recordRunBytes' rows from recordRows into `target` at `at`, one copy; how many bytes. */
  copyRecordRun(first: number, last: number, target: Buffer, at: number): number {
    return (this.recordRows as Buffer).copy(target, at, this.recordRowStart(first), this.recordRowEnd(last) - 1);
  }

  /** Where line i's record row starts in recordRows: its message's place, less 4 bytes a line before it (a 5-byte header becomes "c"). */
  private recordRowStart(i: number): number {
    return (this.bytes as LineBytes).starts[i] - HEADER - 4 * i;
  }

  /** One past line i's record row (its newline included). */
  private recordRowEnd(i: number): number {
    return (this.bytes as LineBytes).ends[i] - 4 * (i + 1);
  }

  static ofTexts(texts: readonly string[]): LineBatch {
    return new LineBatch(texts.length, texts, null);
  }

  /** Lines as messages: line i is chunks[chunkOf[i]][starts[i], ends[i] - 1), its message header the 5 bytes before. */
  static ofMessages(bytes: LineBytes, length: number, packed = false): LineBatch {
    return new LineBatch(length, null, bytes, packed);
  }

  /**
   * The lines [from, to) of each part, in order, as one batch. Lines held as bytes are copied into one
   * SharedArrayBuffer (a run of adjacent messages one copy): the fingerprint thread reads it where it
   * is, where cloning a batch's ~100 socket chunks to it cost more than hashing them.
   */
  static join(parts: readonly { batch: LineBatch; from: number; to: number }[]): LineBatch {
    let length = 0;
    for (const p of parts) length += p.to - p.from;
    if (parts.some((p) => p.batch.bytes === null)) {
      const texts: string[] = [];
      for (const p of parts) for (let i = p.from; i < p.to; i++) texts.push(p.batch.line(i));
      return LineBatch.ofTexts(texts);
    }
    let total = 0;
    for (const { batch, from, to } of parts) {
      const b = batch.bytes as LineBytes;
      for (let i = from; i < to; i++) total += HEADER + b.ends[i] - b.starts[i];
    }
    const out = sharedBuffers.take(total);
    // Shared too: the fingerprint thread is posted them with no copy.
    const index = sharedBuffers.take(8 * length);
    const starts = new Int32Array(index.buffer, index.byteOffset, length);
    const ends = new Int32Array(index.buffer, index.byteOffset + 4 * length, length);
    let at = 0;
    let k = 0;
    // The run of adjacent messages not copied yet: [runFrom, runTo) of runChunk, going to `runAt`.
    let runChunk: Buffer | null = null;
    let runFrom = 0;
    let runTo = 0;
    let runAt = 0;
    for (const { batch, from, to } of parts) {
      const b = batch.bytes as LineBytes;
      for (let i = from; i < to; i++) {
        const chunk = b.chunks[b.chunkOf[i]];
        const start = b.starts[i] - HEADER;
        if (chunk !== runChunk || start !== runTo) {
          if (runChunk) runChunk.copy(out, runAt, runFrom, runTo);
          runChunk = chunk;
          runFrom = start;
          runAt = at;
        }
        runTo = b.ends[i];
        starts[k] = at + HEADER;
        at += runTo - start;
        ends[k++] = at;
      }
    }
    if (runChunk) runChunk.copy(out, runAt, runFrom, runTo);
    const joined = LineBatch.ofMessages({ chunks: [out], chunkOf: new Int32Array(length), starts, ends }, length, true);
    joined.pooled = [out, index];
    return joined;
  }

  /** Line i, without its newline. */
  line(i: number): string {
    if (this.texts) return this.texts[i];
    const b = this.bytes as LineBytes;
    return b.chunks[b.chunkOf[i]].toString("utf8", b.starts[i], b.ends[i] - 1);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.line(i);
  }

  /** The `index`-th field of line i, still COPY text (escaped; `\N` for null), without splitting the rest. */
  field(i: number, index: number): string {
    if (this.texts) return fieldOf(this.texts[i], index);
    const b = this.bytes as LineBytes;
    const chunk = b.chunks[b.chunkOf[i]];
    const end = b.ends[i] - 1;
    const start = fieldStart(chunk, b.starts[i], end, index);
    let stop = start;
    while (stop < end && chunk[stop] !== TAB) stop++;
    return chunk.toString(asciiOnly(chunk, start, stop) ? "latin1" : "utf8", start, stop);
  }

  /**
   * The `index`-th field of every line, as `field` gives it. Held as bytes, the fields are gathered
   * into one buffer and made strings by one decode and one split, not a native call each (a million
   * keys a full sync); a field with a byte past ASCII is decoded alone. A new array each call: the
   * caller may change it.
   */
  fields(index: number): string[] {
    if (this.texts) return this.texts.map((line) => fieldOf(line, index));
    if (this.length === 0) return [];
    const b = this.bytes as LineBytes;
    let gathered = fieldScratch;
    let at = 0;
    let wide: number[] | null = null;
    for (let i = 0; i < this.length; i++) {
      const chunk = b.chunks[b.chunkOf[i]];
      const end = b.ends[i] - 1;
      const start = fieldStart(chunk, b.starts[i], end, index);
      if (at + (end - start) + 1 > gathered.length) gathered = grownScratch(gathered, at + (end - start) + 1);
      let k = start;
      for (; k < end; k++) {
        const c = chunk[k];
        if (c === TAB) break;
        if (c > 0x7f) {
          (wide ??= []).push(i);
          break;
        }
        gathered[at++] = c;
      }
      // A wide field leaves what it copied: its line is cut off at the newline and decoded alone below.
      gathered[at++] = NEWLINE;
    }
    const out = gathered.toString("latin1", 0, at - 1).split("\n");
    // Kept for the next batch unless a batch of long keys grew it past 1 MiB.
    if (gathered.length <= SCRATCH_KEPT) fieldScratch = gathered;
    if (wide) for (const i of wide) out[i] = this.field(i, index);
    return out;
  }

  /** Line i's size: its characters (texts) or its bytes (messages), the newline counted. */
  size(i: number): number {
    if (this.texts) return this.texts[i].length + 1;
    const b = this.bytes as LineBytes;
    return b.ends[i] - b.starts[i];
  }

  /** At most how many UTF-8 bytes `copyLine` writes for line i. */
  maxBytes(i: number): number {
    return this.texts ? this.texts[i].length * 3 : this.size(i) - 1;
  }

  /** Line i's UTF-8 (without its newline) into `target` at `at`; how many bytes (at most maxBytes(i)). */
  copyLine(i: number, target: Buffer, at: number): number {
    if (this.texts) return target.write(this.texts[i], at, "utf8");
    const b = this.bytes as LineBytes;
    const chunk = b.chunks[b.chunkOf[i]];
    const start = b.starts[i];
    const n = b.ends[i] - 1 - start;
    // Short lines by hand: Buffer#copy's native call costs more than a few dozen bytes.
    if (n <= 48) {
      for (let k = 0; k < n; k++) target[at + k] = chunk[start + k];
      return n;
    }
    return chunk.copy(target, at, start, start + n);
  }

  /**
   * The lines at `indices` (ascending) copied into one buffer of their own: a re-run that sends a few
   * lines of a batch keeps them, not the whole batch's buffer, while they wait to be sent and recorded.
   */
  compact(indices: readonly number[]): LineBatch {
    if (this.texts) return LineBatch.ofTexts(indices.map((i) => this.texts![i]));
    const b = this.bytes as LineBytes;
    let total = 0;
    for (const i of indices) total += HEADER + b.ends[i] - b.starts[i];
    const out = Buffer.allocUnsafe(total);
    const starts = new Int32Array(indices.length);
    const ends = new Int32Array(indices.length);
    let at = 0;
    indices.forEach((i, k) => {
      at += b.chunks[b.chunkOf[i]].copy(out, at, b.starts[i] - HEADER, b.ends[i]);
      starts[k] = at - (b.ends[i] - b.starts[i]);
      ends[k] = at;
    });
    return LineBatch.ofMessages({ chunks: [out], chunkOf: new Int32Array(indices.length), starts, ends }, indices.length, true);
  }
}

/** fields()'s buffer, kept between batches up to SCRATCH_KEPT bytes. */
let fieldScratch: Buffer = Buffer.allocUnsafe(64 * 1024);
const SCRATCH_KEPT = 1024 * 1024;

function grownScratch(from: Buffer, size: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(size, from.length * 2));
  from.copy(next);
  return next;
}

/** Where the `index`-th field of the line at [start, end) of `chunk` starts (`end` when the line has fewer fields). */
function fieldStart(chunk: Buffer, start: number, end: number, index: number): number {
  for (let f = 0; f < index && start < end; f++) {
    while (start < end && chunk[start] !== TAB) start++;
    if (start < end) start++;
  }
  return start;
}

/** Whether bytes [start, end) are ASCII (one character each: latin1 reads them as UTF-8 would, at less cost). */
function asciiOnly(chunk: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (chunk[k] > 0x7f) return false;
  return true;
}

/** The `index`-th tab-separated field of a line. */
function fieldOf(line: string, index: number): string {
  let start = 0;
  for (let i = 0; i < index; i++) start = line.indexOf("\t", start) + 1;
  const end = line.indexOf("\t", start);
  return end < 0 ? line.slice(start) : line.slice(start, end);
}

/**
 * Lines chosen for one write: lines of batches, or texts made for it (a mapping's). A PostgreSQL
 * destination takes them as COPY input (`messages`: a run of held lines goes as the slice it came
 * in), the others as texts.
 */
export class CopyLines {
  private constructor(
    /** One batch for every line, or each line's own. */
    private readonly batches: LineBatch | readonly LineBatch[] | null,
    private readonly indices: ArrayLike<number> | null,
    private readonly texts: readonly string[] | null,
  ) {}

  static ofTexts(texts: readonly string[]): CopyLines {
    return new CopyLines(null, null, texts);
  }

  /** Line indices[k] of batches[k] (of `batches`, when one batch), for each k. */
  static ofLines(batches: LineBatch | readonly LineBatch[], indices: ArrayLike<number>): CopyLines {
    return new CopyLines(batches, indices, null);
  }

  get count(): number {
    return (this.texts ?? this.indices)!.length;
  }

  private batchOf(k: number): LineBatch {
    const { batches } = this;
    return Array.isArray(batches) ? (batches as readonly LineBatch[])[k] : (batches as LineBatch);
  }

  lines(): string[] {
    if (this.texts) return [...this.texts];
    return Array.from(this.indices as ArrayLike<number>, (i, k) => this.batchOf(k).line(i));
  }

  /** The lines as CopyData messages, whole, in order: the input of a text `COPY … FROM STDIN`. */
  messages(): Buffer[] {
    const out = new MessageList();
    if (this.texts) {
      for (const t of this.texts) out.text(t);
      return out.done();
    }
    const indices = this.indices as ArrayLike<number>;
    for (let k = 0; k < indices.length; k++) {
      const batch = this.batchOf(k);
      const b = batch.bytes;
      const i = indices[k];
      if (b) out.range(b.chunks[b.chunkOf[i]], b.starts[i] - HEADER, b.ends[i]);
      else out.text(batch.line(i));
    }
    return out.done();
  }
}

/** CopyData messages gathered: adjacent slices of one buffer as one, texts framed in pieces. */
class MessageList {
  private readonly out: Buffer[] = [];
  private buf: Buffer | null = null;
  private from = 0;
  private to = 0;
  private texts: string[] = [];
  private chars = 0;

  range(buf: Buffer, from: number, to: number): void {
    this.flushTexts();
    if (buf === this.buf && from === this.to) {
      this.to = to;
      return;
    }
    this.flushRange();
    this.buf = buf;
    this.from = from;
    this.to = to;
  }

  text(line: string): void {
    this.flushRange();
    this.texts.push(line);
    this.chars += line.length + 1;
    if (this.chars >= PIECE_CHARS) this.flushTexts();
  }

  done(): Buffer[] {
    this.flushRange();
    this.flushTexts();
    return this.out;
  }

  private flushRange(): void {
    if (this.buf) this.out.push(this.buf.subarray(this.from, this.to));
    this.buf = null;
  }

  private flushTexts(): void {
    if (this.texts.length === 0) return;
    this.texts.push("");
    const text = this.texts.join("\n");
    this.texts = [];
    this.chars = 0;
    this.out.push(copyDataMessage(text));
  }
}

/** One CopyData message holding `text`. */
export function copyDataMessage(text: string): Buffer {
  const bytes = Buffer.byteLength(text, "utf8");
  const message = Buffer.allocUnsafe(HEADER + bytes);
  message[0] = COPY_DATA;
  message.writeInt32BE(bytes + 4, 1);
  message.write(text, HEADER, "utf8");
  return message;
}

/** Whether byte `end - 1` ends a line (a COPY text row's message ends with its newline). */
export function endsLine(buf: Buffer, end: number): boolean {
  return buf[end - 1] === NEWLINE;
}

// Their maps outlive the batches (keep-shape.ts).
keepShape(LineBatch.ofMessages({ chunks: [], chunkOf: new Int32Array(0), starts: new Int32Array(0), ends: new Int32Array(0) }, 0));
keepShape(LineBatch.ofTexts([]));
keepShape(CopyLines.ofTexts([]));
keepShape(new MessageList());
