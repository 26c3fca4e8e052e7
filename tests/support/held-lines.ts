// Lines held as a PostgreSQL source holds them (line-batch.ts), for tests: no test runner imports here.
import { copyDataMessage, HEADER, LineBatch } from "@/lib/db/pg-wire/line-batch";

/** The lines as a source sends them: one CopyData message each, in chunks of `per` messages. */
export function heldBatch(lines: readonly string[], per: number): LineBatch {
  const chunks: Buffer[] = [];
  const chunkOf = new Int32Array(lines.length);
  const starts = new Int32Array(lines.length);
  const ends = new Int32Array(lines.length);
  for (let from = 0; from < lines.length; from += per) {
    const messages = lines.slice(from, from + per).map((line) => copyDataMessage(`${line}\n`));
    let at = 0;
    messages.forEach((m, k) => {
      chunkOf[from + k] = chunks.length;
      starts[from + k] = at + HEADER;
      at += m.length;
      ends[from + k] = at;
    });
    chunks.push(Buffer.concat(messages));
  }
  return LineBatch.ofMessages({ chunks, chunkOf, starts, ends }, lines.length);
}
