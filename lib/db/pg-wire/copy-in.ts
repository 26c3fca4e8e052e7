// `COPY … FROM STDIN` whose whole input is already in memory, sent here rather than through
// pg-copy-streams: the library wrote each chunk as two socket writes (its 5-byte CopyData header,
// then the chunk), fed from a Readable over the array, so a promise and two system calls a chunk:
// ~12,000 writes a million-row sync, each waking a PostgreSQL backend. Here the messages go out
// corked, a few megabytes to a writev, once the server answers CopyInResponse (bench/README.md,
// 2026-11-30 (o)). Through pg's public submittable interface, as copy-out.ts.
import type { Duplex } from "node:stream";
import type { ClientBase, Connection, Submittable } from "pg";

const COPY_DATA = 0x64; // d
const COPY_DONE = Buffer.from([0x63 /* c */, 0, 0, 0, 4]);
/** Type (1 byte) and length (4 bytes, counting itself) of a message. */
const HEADER = 5;
/**
 * Bytes corked into one writev at most; the next slice waits until the socket drained. A TLS socket
 * joins a corked writev into one buffer to encrypt it: a whole batch at once would be held twice.
 */
const SLICE_BYTES = 4 * 1024 * 1024;

/** CopyFail: ends the copy on the server with nothing written, whatever was sent already. */
function copyFail(reason: string): Buffer {
  const text = Buffer.from(`${reason}\0`, "utf8");
  const message = Buffer.allocUnsafe(HEADER + text.length);
  message[0] = 0x66; // f
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, HEADER);
  return message;
}

/** Resolves once the socket drained, or closed (an error ends the copy through handleError). */
function drained(socket: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}

class CopyIn implements Submittable {
  /** Set by pg when the client has a query timeout: told when the query ends, so its timer stops. */
  callback?: (err: Error | null) => void;
  private rowCount = 0;
  private settled = false;
  /**
   * The server has left copy mode (it answered with an error, or ReadyForQuery): nothing more may be
   * written for this copy, since the connection's next statement may be another copy reading its input.
   */
  private serverDone = false;

  constructor(
    private readonly text: string,
    private readonly chunks: readonly Buffer[],
    /** The chunks are CopyData messages already (line-batch.ts), written as they are. */
    private readonly framed: boolean,
    private readonly done: (err: Error | null, rowCount: number) => void,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: Connection): void {
    void this.send(connection.stream);
  }

  private async send(socket: Duplex): Promise<void> {
    const chunks = this.chunks.filter((c) => c.length > 0);
    const headers = Buffer.allocUnsafe(this.framed ? 0 : chunks.length * HEADER);
    let i = 0;
    while (i < chunks.length) {
      if (this.serverDone) return;
      // Failed on our side meanwhile (pg's query timeout): the server must not commit what it has.
      if (this.settled) {
        socket.write(copyFail("the copy was abandoned by the client"));
        return;
      }
      socket.cork();
      for (let bytes = 0; i < chunks.length && bytes < SLICE_BYTES; i++) {
        if (!this.framed) {
          const header = headers.subarray(i * HEADER, (i + 1) * HEADER);
          header[0] = COPY_DATA;
          header.writeInt32BE(chunks[i].length + 4, 1);
          socket.write(header);
        }
        socket.write(chunks[i]);
        bytes += chunks[i].length;
      }
      socket.uncork();
      if (socket.writableNeedDrain) await drained(socket);
    }
    if (!this.serverDone) socket.write(this.settled ? copyFail("the copy was abandoned by the client") : COPY_DONE);
  }

  handleCommandComplete(msg: { text?: string }): void {
    const match = /COPY (\d+)/.exec(msg.text ?? "");
    if (match) this.rowCount = Number(match[1]);
  }

  /** A server error is followed by ReadyForQuery, a lost connection by nothing: the copy ends at either. */
  handleError(err: Error): void {
    // The server's own errors carry a severity; a query timeout or a lost socket do not.
    if ("severity" in err) this.serverDone = true;
    this.settle(err);
  }

  handleReadyForQuery(): void {
    this.serverDone = true;
    this.settle(null);
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(err);
    this.done(err, this.rowCount);
  }
}

/**
 * Runs `sql` (a `COPY … FROM STDIN`) with `chunks`, in order, as its whole input; the rows copied.
 * `framed`: each chunk is whole CopyData messages already (a source's own, line-batch.ts).
 */
export function copyIn(client: ClientBase, sql: string, chunks: readonly Buffer[], framed = false): Promise<number> {
  return new Promise((resolve, reject) => {
    void client.query(new CopyIn(sql, chunks, framed, (err, rowCount) => (err ? reject(err) : resolve(rowCount))));
  });
}
