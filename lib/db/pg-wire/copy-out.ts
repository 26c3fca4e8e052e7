// `COPY … TO STDOUT` read off the wire here, not through pg-copy-streams: PostgreSQL sends one
// CopyData message per row, and the library cut each into a Buffer of its own before joining them
// again (two allocations and a copy per row, a tenth of a no-change re-run's CPU), for the reader to
// decode and split into lines again. Here each chunk from the socket becomes either one Buffer of the
// rows it holds (copyOut), or a LineBatch of its rows that views the chunk itself, nothing decoded or
// copied (copyOutLines; line-batch.ts). The whole exchange is ours, through pg's public submittable
// interface (`client.query(submittable)` calls `submit(connection)`, then `handleError` / `handleCommandComplete`
// / `handleReadyForQuery`): the stream takes the connection's socket over from pg while the copy runs
// and hands it back, with whatever followed the copy, at CopyDone or an ErrorResponse.
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import type { Connection, Submittable } from "pg";
import { endsLine, LineBatch } from "./line-batch";
import { keepShape } from "@/lib/runtime/keep-shape";

// Message types (PostgreSQL frontend/backend protocol, "Message Formats").
const COPY_DATA = 0x64; // d
const ERROR_RESPONSE = 0x45; // E
/** Messages that may come before or between the rows without ending the copy; CopyDone (c) or any other ends it. */
const INTERSPERSED = new Set([0x48 /* CopyOutResponse */, COPY_DATA, 0x4e /* Notice */, 0x53 /* ParameterStatus */, 0x41 /* Notification */]);
/** Type (1 byte) and length (4 bytes, counting itself) of a message. */
const HEADER = 5;

type DataListener = (chunk: Buffer) => void;

class CopyOutStream extends Readable implements Submittable {
  /** Rows copied, from the CommandComplete that follows the copy. */
  rowCount = 0;
  private socket: Duplex | null = null;
  /** pg's own reader of the socket, set aside while the copy runs. */
  private pgReader: DataListener | null = null;
  private readonly onReadable = () => this.forward();
  /** The consumer asked for more (`_read`) and the last push did not say stop. */
  private wanted = false;
  private forwarding = false;
  /** The start of a header cut by the end of the last chunk. */
  private partialHeader: Buffer | null = null;
  /** Lines mode: the parts of a row cut by the ends of chunks (copied: the chunks are not kept). */
  private rowParts: Buffer[] = [];
  /** The type of the message being read, and how many of its bytes are still to come. */
  private type = 0;
  private left = 0;
  /** The length of the CopyData message being read (a row cut by chunks is framed again with it). */
  private messageLength = 0;
  private inMessage = false;

  constructor(
    private readonly text: string,
    /** Text COPY read as lines (one row a CopyData message, ending in a newline), not bytes. */
    private readonly lines: boolean,
  ) {
    super(lines ? { objectMode: true, highWaterMark: 4 } : undefined);
    // pg fails the copy through handleError when its client ends (a run canceled as the copy starts),
    // maybe before anyone reads the stream: an error event nobody listens to would end the process.
    // A reader still gets the error from its own listener (for await, pipeline); `errored` keeps it.
    this.on("error", () => undefined);
  }

  submit(connection: Connection): void {
    const socket = connection.stream;
    const readers = socket.listeners("data");
    // pg reads its socket with one "data" listener; anything else is a pg this code does not know.
    if (readers.length !== 1) throw new Error(`pg's connection has ${readers.length} socket readers, not one: COPY cannot take it over.`);
    this.socket = socket;
    this.pgReader = readers[0] as DataListener;
    socket.removeListener("data", this.pgReader);
    socket.pause();
    socket.on("readable", this.onReadable);
    connection.query(this.text);
    this.forward();
  }

  override _read(): void {
    this.wanted = true;
    this.forward();
  }

  handleError(err: Error): void {
    this.destroy(err);
  }

  handleCommandComplete(msg: { text?: string }): void {
    const match = /COPY (\d+)/.exec(msg.text ?? "");
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {}

  private forward(): void {
    if (this.forwarding || !this.wanted || !this.socket) return;
    this.forwarding = true;
    let chunk: Buffer | null;
    while (this.wanted && this.socket && (chunk = this.socket.read() as Buffer | null) !== null) {
      this.wanted = this._parse(chunk);
    }
    this.forwarding = false;
  }

  /** Reads one chunk of the socket; false when the consumer wants no more for now (or the stream failed). */
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

  /** The socket back to pg, with `rest` (what followed the copy, or its error) for it to read first. */
  private handBack(rest: Buffer): void {
    const socket = this.socket;
    const pgReader = this.pgReader;
    if (!socket || !pgReader) return;
    this.socket = null;
    this.pgReader = null;
    socket.removeListener("readable", this.onReadable);
    socket.on("data", pgReader);
    if (rest.length > 0) pgReader(rest);
    // pg's reader may pause the socket itself while it handles `rest`: resumed once it is done.
    process.nextTick(() => socket.resume());
  }

  private parse(chunk: Buffer): boolean {
    let buf = chunk;
    if (this.partialHeader) {
      buf = Buffer.concat([this.partialHeader, chunk]);
      this.partialHeader = null;
    }
    const end = buf.length;
    const rows = this.lines ? undefined : Buffer.allocUnsafe(end);
    const lines = this.lines ? new PieceBuilder() : undefined;
    let size = 0;
    let at = 0;
    let finished = false;
    let errorAt = -1;
    /** The current message's header is in `buf` (a line's message must be, to be sent on as it is). */
    let headerHere = false;
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
        headerHere = true;
        at += HEADER;
        if (this.type === COPY_DATA) this.messageLength = this.left;
      }
      const n = Math.min(this.left, end - at);
      if (n > 0) {
        if (this.type === COPY_DATA) {
          if (rows) size += buf.copy(rows, size, at, at + n);
          else if (n === this.left && headerHere) lines?.line(buf, at, at + n);
          else this.rowParts.push(Buffer.from(buf.subarray(at, at + n)));
        }
        at += n;
        this.left -= n;
      }
      if (this.left > 0) break;
      this.inMessage = false;
      headerHere = false;
      if (this.rowParts.length > 0) {
        // A row cut by the ends of chunks: whole again, as a message of its own.
        const header = Buffer.allocUnsafe(HEADER);
        header[0] = COPY_DATA;
        header.writeInt32BE(this.messageLength + 4, 1);
        const whole = Buffer.concat([header, ...this.rowParts]);
        this.rowParts = [];
        lines?.line(whole, HEADER, whole.length);
      }
      if (!INTERSPERSED.has(this.type)) {
        finished = true;
        break;
      }
    }
    let drained = true;
    if (rows && size > 0) drained = this.push(rows.subarray(0, size));
    else if (lines && lines.count > 0) drained = this.push(lines.batch());
    if (errorAt >= 0) {
      // pg reads the error from here on and fails the query (handleError).
      this.handBack(buf.subarray(errorAt));
      return false;
    }
    if (finished) {
      // What follows the copy (CommandComplete, ReadyForQuery) is pg's again.
      this.handBack(buf.subarray(at));
      this.push(null);
      return false;
    }
    return drained;
  }
}

/** Where each line of one socket chunk is, gathered in scratch arrays shared by all streams, then copied out exact. */
let scratch = { chunkOf: new Int32Array(4096), starts: new Int32Array(4096), ends: new Int32Array(4096) };

class PieceBuilder {
  count = 0;
  private readonly chunks: Buffer[] = [];

  /** A row's line, bytes [start, end) of `chunk` (its newline last; its message header just before). */
  line(chunk: Buffer, start: number, end: number): void {
    if (end <= start || !endsLine(chunk, end)) throw new Error("A COPY row did not end with a newline.");
    if (this.count === scratch.starts.length) {
      const grown = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      scratch = { chunkOf: grown(scratch.chunkOf), starts: grown(scratch.starts), ends: grown(scratch.ends) };
    }
    let c = this.chunks.length - 1;
    if (c < 0 || this.chunks[c] !== chunk) c = this.chunks.push(chunk) - 1;
    scratch.chunkOf[this.count] = c;
    scratch.starts[this.count] = start;
    scratch.ends[this.count] = end;
    this.count++;
  }

  batch(): LineBatch {
    const n = this.count;
    const { chunkOf, starts, ends } = scratch;
    return LineBatch.ofMessages({ chunks: this.chunks, chunkOf: chunkOf.slice(0, n), starts: starts.slice(0, n), ends: ends.slice(0, n) }, n);
  }
}

/** The stream of `COPY (…) TO STDOUT`'s output as Buffers (rows whole or cut anywhere), for `client.query()`. */
export function copyOut(sql: string): Readable & Submittable {
  return new CopyOutStream(sql, false);
}

/**
 * The stream of a text `COPY (…) TO STDOUT`'s rows as LineBatches held as their messages (one per
 * chunk read from the socket, viewing it), for `client.query()`.
 */
export function copyOutLines(sql: string): Readable & Submittable {
  return new CopyOutStream(sql, true);
}

// Its map outlives the chunks (keep-shape.ts).
keepShape(new PieceBuilder());
