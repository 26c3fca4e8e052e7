// `COPY … TO STDOUT` with a leaner reading of the wire than pg-copy-streams' own: PostgreSQL sends
// one CopyData message per row, and the library cut each into a Buffer of its own before joining them
// again (two allocations and a copy per row, a tenth of a no-change re-run's CPU), for the reader to
// decode and split into lines again. Here each chunk from the socket becomes either one Buffer of the
// rows it holds (copyOut), or the text lines of its rows, each decoded straight from the socket's
// bytes (copyOutLines). The library still does everything else (taking the connection over from pg
// and handing it back, errors, backpressure): only its message reader is replaced.
import type { Readable, ReadableOptions } from "node:stream";
import { to as copyTo } from "pg-copy-streams";

// Message types (PostgreSQL frontend/backend protocol, "Message Formats").
const COPY_DATA = 0x64; // d
const ERROR_RESPONSE = 0x45; // E
/** Messages that may come before or between the rows without ending the copy. */
const INTERSPERSED = new Set([0x48 /* CopyOutResponse */, COPY_DATA, 0x4e /* Notice */, 0x53 /* ParameterStatus */, 0x41 /* Notification */]);
/** Type (1 byte) and length (4 bytes, counting itself) of a message. */
const HEADER = 5;

/** The parts of the library's stream this reader works with (pg-copy-streams 7). */
interface LibraryInternals extends Readable {
  _buffer: { push(data: Buffer): void };
  _detach(): void;
  _cleanup(): void;
}

type CopyToStream = ReturnType<typeof copyTo>;
const LibraryCopyTo = Object.getPrototypeOf(copyTo("")).constructor as new (text: string, options?: ReadableOptions) => CopyToStream;

class CopyOutStream extends LibraryCopyTo {
  /** The start of a header cut by the end of the last chunk. */
  private partialHeader: Buffer | null = null;
  /** Lines mode: the parts of a row cut by the ends of chunks. */
  private rowParts: Buffer[] = [];
  /** The type of the message being read, and how many of its bytes are still to come. */
  private type = 0;
  private left = 0;
  private inMessage = false;

  constructor(
    sql: string,
    /** Text COPY read as lines (one row a CopyData message, ending in a newline), not bytes. */
    private readonly lines: boolean,
  ) {
    super(sql, lines ? { objectMode: true, highWaterMark: 4 } : undefined);
  }

  /** The library's reader, replaced: returns false when the consumer wants no more for now. */
  _parse(chunk: Buffer): boolean {
    try {
      return this.parse(chunk);
    } catch (err) {
      // Called from the socket's own events: thrown, it would end the process. The stream fails
      // instead, holding the connection (its owner ends it: the copy cannot be resumed).
      this.destroy(err as Error);
      return false;
    }
  }

  private parse(chunk: Buffer): boolean {
    const self = this as unknown as LibraryInternals;
    let buf = chunk;
    if (this.partialHeader) {
      buf = Buffer.concat([this.partialHeader, chunk]);
      this.partialHeader = null;
    }
    const end = buf.length;
    const rows = this.lines ? undefined : Buffer.allocUnsafe(end);
    const lines: string[] = [];
    let size = 0;
    let at = 0;
    let finished = false;
    let errorAt = -1;
    while (at < end) {
      if (!this.inMessage) {
        if (end - at < HEADER) {
          // Copied: keeping a view would keep the whole chunk.
          this.partialHeader = Buffer.from(buf.subarray(at));
          at = end;
          break;
        }
        if (buf[at] === ERROR_RESPONSE) {
          errorAt = at;
          break;
        }
        this.type = buf[at];
        this.left = buf.readUInt32BE(at + 1) - 4;
        this.inMessage = true;
        at += HEADER;
      }
      const n = Math.min(this.left, end - at);
      if (n > 0) {
        if (this.type === COPY_DATA) {
          if (rows) size += buf.copy(rows, size, at, at + n);
          else if (n === this.left && this.rowParts.length === 0) lines.push(lineOf(buf, at, at + n));
          else this.rowParts.push(Buffer.from(buf.subarray(at, at + n)));
        }
        at += n;
        this.left -= n;
      }
      if (this.left > 0) break;
      this.inMessage = false;
      if (this.rowParts.length > 0) {
        const whole = Buffer.concat(this.rowParts);
        this.rowParts = [];
        lines.push(lineOf(whole, 0, whole.length));
      }
      if (!INTERSPERSED.has(this.type)) {
        finished = true;
        break;
      }
    }
    let drained = true;
    if (rows && size > 0) drained = this.push(rows.subarray(0, size));
    else if (lines.length > 0) drained = this.push(lines);
    if (errorAt >= 0) {
      // pg reads the error from here on and fails the query (the library's stream emits it).
      self._buffer.push(buf.subarray(errorAt));
      self._detach();
      return false;
    }
    if (finished) {
      // What follows the copy (CommandComplete, ReadyForQuery) is pg's again.
      if (at < end) self._buffer.push(buf.subarray(at));
      self._detach();
      this.push(null);
      self._cleanup();
    }
    return drained;
  }
}

/** A text row's line: its bytes as UTF-8 without the newline that ends it. */
function lineOf(buf: Buffer, start: number, end: number): string {
  if (end <= start || buf[end - 1] !== 0x0a) throw new Error("A COPY row did not end with a newline.");
  return buf.toString("utf8", start, end - 1);
}

/** The stream of `COPY (…) TO STDOUT`'s output as Buffers (rows whole or cut anywhere), for `client.query()`. */
export function copyOut(sql: string): CopyToStream {
  return new CopyOutStream(sql, false);
}

/**
 * The stream of a text `COPY (…) TO STDOUT`'s rows as arrays of lines (one array per chunk read from
 * the socket), for `client.query()`.
 */
export function copyOutLines(sql: string): CopyToStream {
  return new CopyOutStream(sql, true);
}
