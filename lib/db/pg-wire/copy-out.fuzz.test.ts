// The COPY-out reader's handling of the wire, without a server: synthetic backend message sequences
// (rows, notices, parameter statuses and notifications between them, the end of the copy with what
// follows it in the same chunk, an error in the middle) cut into chunks at every byte offset and at
// random ones, fed to the stream's `_parse` as a socket would hand them over. The rows must come out
// whole and in order, and exactly the bytes after the copy (or from the error on) must go back to pg,
// as with pg-copy-streams' own reader.
import { PassThrough, type Readable } from "node:stream";
import { to as copyTo } from "pg-copy-streams";
import { describe, expect, it } from "vitest";
import { copyOut, copyOutLines } from "./copy-out";
import { CopyLines, type LineBatch } from "./line-batch";
import { seededBelow } from "@/tests/support/random";

/** A backend message: type, length (counting itself), payload. */
function message(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeUInt32BE(payload.length + 4, 1);
  return Buffer.concat([head, payload]);
}
const cstr = (...parts: string[]) => Buffer.concat(parts.map((p) => Buffer.from(`${p}\0`, "utf8")));
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

const M = {
  copyOutResponse: (columns: number) => {
    const b = Buffer.alloc(3 + 2 * columns);
    b.writeUInt16BE(columns, 1);
    return message("H", b);
  },
  data: (bytes: Buffer) => message("d", bytes),
  notice: (text: string) => message("N", Buffer.concat([cstr("SNOTICE", `M${text}`), Buffer.from([0])])),
  parameterStatus: (name: string, value: string) => message("S", cstr(name, value)),
  notification: (channel: string, payload: string) =>
    message("A", Buffer.concat([int32(4242), cstr(channel, payload)])),
  copyDone: () => message("c"),
  commandComplete: (tag: string) => message("C", cstr(tag)),
  readyForQuery: () => message("Z", Buffer.from("I")),
  error: (text: string) =>
    message("E", Buffer.concat([cstr("SERROR", "C22012", `M${text}`), Buffer.from([0])])),
};

/** What a run of the reader gave: its output, what it handed back to pg, and whether it ended. */
interface Outcome {
  out: unknown[];
  handed: Buffer;
  ended: boolean;
}

interface Internals extends Readable {
  submit(connection: unknown): void;
  _parse(chunk: Buffer): unknown;
}

/**
 * Feeds `chunks` to `stream` as the library's reading loop would (each chunk to `_parse` while the
 * stream holds the connection; after it hands the connection back, the rest go straight to pg).
 */
async function feed(stream: Internals, chunks: Buffer[]): Promise<Outcome> {
  const handed: Buffer[] = [];
  const socket = new PassThrough();
  socket.on("data", (b: Buffer) => handed.push(b));
  stream.submit({ stream: socket, query: () => undefined });
  const out: unknown[] = [];
  let ended = false;
  stream.on("data", (d: unknown) => out.push(d));
  stream.on("end", () => (ended = true));
  for (const chunk of chunks) {
    // Handed back: pg's own listener reads the socket again.
    if (socket.listenerCount("data") > 0) handed.push(chunk);
    else stream._parse(chunk);
  }
  await new Promise((resolve) => setImmediate(resolve));
  socket.destroy();
  return { out, handed: Buffer.concat(handed), ended };
}

/** `bytes` cut at `cuts` (sorted offsets). */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of cuts) {
    if (at <= from || at >= bytes.length) continue;
    chunks.push(bytes.subarray(from, at));
    from = at;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

/** Deterministic, so a failure repeats. */
const random = seededBelow(2024);

/** Text rows with 1-, 2-, 3- and 4-byte characters, an empty row, and one longer than most chunks. */
const ROWS = ["1\tplain", "", "2\té☃𝄞 mixed", "3\t\\N", `4\t${"☃".repeat(40)}`, "5\tlast"];

/** A copy of ROWS (text, one row per CopyData) with the asynchronous messages between them. */
function copySequence(rows: string[]): { before: Buffer; after: Buffer } {
  const parts: Buffer[] = [M.parameterStatus("application_name", "x"), M.copyOutResponse(2)];
  rows.forEach((row, i) => {
    parts.push(M.data(Buffer.from(`${row}\n`, "utf8")));
    if (i === 0) parts.push(M.notice("between rows"));
    if (i === 2) parts.push(M.parameterStatus("TimeZone", "UTC"), M.notification("chan", "hello"));
  });
  return {
    before: Buffer.concat(parts),
    after: Buffer.concat([M.copyDone(), M.commandComplete(`COPY ${rows.length}`), M.readyForQuery()]),
  };
}

const lines = (o: Outcome) => (o.out as Iterable<string>[]).flatMap((piece) => [...piece]);
/** The lines' messages as the destination is sent them (line-batch.ts): each its own, whole CopyData message. */
const messagesOf = (o: Outcome) => {
  const pieces = o.out as LineBatch[];
  const batches = pieces.flatMap((p) => Array.from({ length: p.length }, () => p));
  const indices = pieces.flatMap((p) => Array.from({ length: p.length }, (_, i) => i));
  return Buffer.concat(CopyLines.ofLines(batches, indices).messages());
};
const rowMessages = (rows: string[]) =>
  Buffer.concat(rows.map((row) => M.data(Buffer.from(`${row}\n`, "utf8"))));
const bytesOf = (o: Outcome) => Buffer.concat(o.out as Buffer[]);

describe("copyOut's reading of the wire (synthetic messages)", () => {
  const { before, after } = copySequence(ROWS);
  const wire = Buffer.concat([before, after]);
  const rowBytes = Buffer.from(ROWS.map((r) => `${r}\n`).join(""), "utf8");

  it("gives every row whole, and pg exactly what follows the copy, for the wire cut at any one or two offsets", async () => {
    for (let a = 0; a <= wire.length; a++) {
      for (let b = a; b <= wire.length; b += a % 7 === 0 ? 1 : 5) {
        const chunks = cut(wire, [a, b]);
        const text = await feed(copyOutLines("COPY x TO STDOUT") as unknown as Internals, chunks);
        expect(lines(text), `cut at ${a}, ${b}`).toEqual(ROWS);
        expect(messagesOf(text).equals(rowMessages(ROWS)), `messages cut at ${a}, ${b}`).toBe(true);
        expect(text.ended).toBe(true);
        expect(text.handed.equals(after.subarray(5)), `handed back after cuts at ${a}, ${b}`).toBe(true);
        const raw = await feed(copyOut("COPY x TO STDOUT") as unknown as Internals, chunks);
        expect(bytesOf(raw).equals(rowBytes)).toBe(true);
        expect(raw.ended).toBe(true);
        expect(raw.handed.equals(text.handed)).toBe(true);
      }
    }
  });

  it("gives the library's bytes and hand-back for random rows cut into random chunks (fuzz)", async () => {
    for (let round = 0; round < 400; round++) {
      const rows = Array.from({ length: random(30) }, () => {
        const chars = ["a", "\t", "é", "☃", "𝄞", "\\", "0", " "];
        return Array.from(
          { length: random(random(10) === 0 ? 3000 : 40) },
          () => chars[random(chars.length)],
        ).join("");
      });
      const seq = copySequence(rows);
      const all = Buffer.concat([seq.before, seq.after]);
      const cuts = Array.from({ length: random(40) }, () => random(all.length + 1)).sort((x, y) => x - y);
      const chunks = cut(all, cuts);
      const library = await feed(copyTo("COPY x TO STDOUT") as unknown as Internals, chunks);
      const raw = await feed(copyOut("COPY x TO STDOUT") as unknown as Internals, chunks);
      expect(bytesOf(raw).equals(bytesOf(library)), `round ${round}`).toBe(true);
      expect(raw.handed.equals(library.handed), `round ${round}`).toBe(true);
      expect(raw.ended && library.ended).toBe(true);
      const text = await feed(copyOutLines("COPY x TO STDOUT") as unknown as Internals, chunks);
      expect(lines(text), `round ${round}`).toEqual(rows);
      expect(messagesOf(text).equals(rowMessages(rows)), `messages, round ${round}`).toBe(true);
      expect(text.handed.equals(library.handed)).toBe(true);
    }
  });

  it("hands an error in the middle of the copy to pg from its first byte, wherever the chunks are cut", async () => {
    const rows = ROWS.slice(0, 3);
    const seq = copySequence(rows);
    const failure = Buffer.concat([M.error("division by zero"), M.readyForQuery()]);
    const all = Buffer.concat([seq.before, failure]);
    for (let a = 0; a <= all.length; a++) {
      const chunks = cut(all, [a, a + 3]);
      const library = await feed(copyTo("COPY x TO STDOUT") as unknown as Internals, chunks);
      for (const stream of [copyOut("COPY x TO STDOUT"), copyOutLines("COPY x TO STDOUT")]) {
        const o = await feed(stream as unknown as Internals, chunks);
        // pg reads the error (and fails the query through the stream's handleError); the copy has not ended.
        expect(o.handed.equals(failure), `cut at ${a}`).toBe(true);
        expect(o.handed.equals(library.handed)).toBe(true);
        expect(o.ended).toBe(false);
      }
    }
  });

  it("ends an empty copy, and one without asynchronous messages", async () => {
    const empty = Buffer.concat([
      M.copyOutResponse(1),
      M.copyDone(),
      M.commandComplete("COPY 0"),
      M.readyForQuery(),
    ]);
    for (let a = 0; a <= empty.length; a++) {
      const o = await feed(copyOutLines("COPY x TO STDOUT") as unknown as Internals, cut(empty, [a]));
      expect(lines(o)).toEqual([]);
      expect(o.ended).toBe(true);
      expect(o.handed.equals(empty.subarray(empty.length - 6 - 12))).toBe(true);
    }
  });
});

describe("copyOutLines on a row that does not end in a newline (never sent by PostgreSQL's text COPY)", () => {
  it("fails its stream, not the process, when the row arrives on the socket", { timeout: 5000 }, async () => {
    const socket = new PassThrough();
    socket.on("data", () => undefined);
    const stream = copyOutLines("COPY x TO STDOUT") as unknown as Internals;
    stream.submit({ stream: socket, query: () => undefined });
    const failure = (async () => {
      for await (const part of stream) void part;
    })().then(
      () => null,
      (err: Error) => err,
    );
    // Arrives while the reader waits for data: the socket's 'readable' event runs the parse.
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(Buffer.concat([M.copyOutResponse(1), M.data(Buffer.from("1\tno newline")), M.copyDone()]));
    expect((await failure)?.message).toMatch(/did not end with a newline/);
    socket.destroy();
  });
});
