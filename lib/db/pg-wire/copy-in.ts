// `COPY … FROM STDIN` whose whole input is already in memory, sent here rather than through
// pg-copy-streams: the library wrote each chunk as two socket writes (its 5-byte CopyData header,
// then the chunk), fed from a Readable over the array, so a promise and two system calls a chunk:
// ~12,000 writes a million-row sync, each waking a PostgreSQL backend. Here every message goes out
// corked, as one writev, once the server answers CopyInResponse (bench/README.md, 2026-11-30).
// Through pg's public submittable interface, as copy-out.ts.
import type { ClientBase, Connection, Submittable } from "pg";

const COPY_DATA = 0x64; // d
const COPY_DONE = Buffer.from([0x63 /* c */, 0, 0, 0, 4]);
/** Type (1 byte) and length (4 bytes, counting itself) of a message. */
const HEADER = 5;

class CopyIn implements Submittable {
  /** Set by pg when the client has a query timeout: told when the query ends, so its timer stops. */
  callback?: (err: Error | null) => void;
  private rowCount = 0;
  private settled = false;

  constructor(
    private readonly text: string,
    private readonly chunks: readonly Buffer[],
    private readonly done: (err: Error | null, rowCount: number) => void,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: Connection): void {
    const socket = connection.stream;
    const chunks = this.chunks.filter((c) => c.length > 0);
    const headers = Buffer.allocUnsafe(chunks.length * HEADER);
    socket.cork();
    chunks.forEach((chunk, i) => {
      const header = headers.subarray(i * HEADER, (i + 1) * HEADER);
      header[0] = COPY_DATA;
      header.writeInt32BE(chunk.length + 4, 1);
      socket.write(header);
      socket.write(chunk);
    });
    // After an ErrorResponse the server ignores the rest of the copy's messages (postgres.c).
    socket.write(COPY_DONE);
    socket.uncork();
  }

  handleCommandComplete(msg: { text?: string }): void {
    const match = /COPY (\d+)/.exec(msg.text ?? "");
    if (match) this.rowCount = Number(match[1]);
  }

  /** A server error is followed by ReadyForQuery, a lost connection by nothing: the copy ends at either. */
  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    this.settle(null);
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(err);
    this.done(err, this.rowCount);
  }
}

/** Runs `sql` (a `COPY … FROM STDIN`) with `chunks`, in order, as its whole input; the rows copied. */
export function copyIn(client: ClientBase, sql: string, chunks: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    void client.query(new CopyIn(sql, chunks, (err, rowCount) => (err ? reject(err) : resolve(rowCount))));
  });
}
