// The COPY-out reader against a real PostgreSQL: the same bytes as pg-copy-streams' reader (kept as the reference) for
// rows of every size (tiny, past a socket chunk, past a whole read), notices between rows, a slow
// consumer, an error in the middle of the copy, and the connection usable after each.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { to as copyTo } from "pg-copy-streams";
import { describe, expect, it } from "vitest";
import { createScratchDatabase, useScratchClient } from "@/tests/support/db";
import { copyOut, copyOutLines } from "./copy-out";

const client = useScratchClient(
  "ds_copy_out",
  `CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$
    BEGIN IF i % 1000 = 0 THEN RAISE NOTICE 'row %', i; END IF; RETURN i; END $$`,
);

async function bytes(stream: NodeJS.ReadableStream, slow = false): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    parts.push(chunk);
    if (slow && parts.length % 50 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  return Buffer.concat(parts);
}

const SQL = {
  // Tiny rows, rows past a 64 kB chunk, a row of 3 MB, multibyte text and binary COPY.
  mixed: `COPY (SELECT i, noisy(i), CASE WHEN i % 5000 = 0 THEN repeat('é☃x', 30000) WHEN i = 7777 THEN repeat('z', 3000000) ELSE md5(i::text) END
           FROM generate_series(1, 20000) i) TO STDOUT`,
  binary: `COPY (SELECT i, md5(i::text)::bytea FROM generate_series(1, 50000) i) TO STDOUT (FORMAT binary)`,
  empty: `COPY (SELECT 1 WHERE false) TO STDOUT`,
};

describe("copyOut", () => {
  it.each(Object.keys(SQL) as (keyof typeof SQL)[])("gives the library's bytes (%s), and the connection goes on", { timeout: 60_000 }, async (name) => {
    const expected = await bytes(client().query(copyTo(SQL[name])));
    const fast = await bytes(client().query(copyOut(SQL[name])));
    expect(fast.length).toBe(expected.length);
    expect(fast.equals(expected)).toBe(true);
    const slow = await bytes(client().query(copyOut(SQL[name])), true);
    expect(slow.equals(expected)).toBe(true);
    expect((await client().query("SELECT 41 + 1 AS n")).rows[0].n).toBe(42);
  });

  it("reads text rows as lines: the library's bytes split at their newlines, a row past many chunks whole", { timeout: 60_000 }, async () => {
    const expected = (await bytes(client().query(copyTo(SQL.mixed)))).toString("utf8").split("\n").slice(0, -1);
    for (const slow of [false, true]) {
      const lines: string[] = [];
      let arrays = 0;
      for await (const part of client().query(copyOutLines(SQL.mixed)) as AsyncIterable<string[]>) {
        lines.push(...part);
        if (slow && ++arrays % 20 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      expect(lines.length).toBe(20_000);
      expect(lines).toEqual(expected);
      expect(lines[7776]).toBe(`7777\t7777\t${"z".repeat(3_000_000)}`);
    }
    const none: string[][] = [];
    for await (const part of client().query(copyOutLines(SQL.empty)) as AsyncIterable<string[]>) none.push(part);
    expect(none).toEqual([]);
    expect((await client().query("SELECT 'on' AS s")).rows[0].s).toBe("on");
  });

  it("fails with the server's error in the middle of a copy, and the connection goes on", { timeout: 30_000 }, async () => {
    const stream = client().query(copyOut("COPY (SELECT 1 / (i - 30000) FROM generate_series(1, 40000) i) TO STDOUT"));
    let received = 0;
    const failure = await (async () => {
      for await (const chunk of stream as AsyncIterable<Buffer>) received += chunk.length;
    })().then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).toMatch(/division by zero/);
    expect(received).toBeGreaterThan(0);
    expect((await client().query("SELECT 'still here' AS s")).rows[0].s).toBe("still here");
  });

  // The reader takes pg's socket over through pg's connection (pinned exactly in package.json): a pg
  // that reads its socket differently fails here, not in a run.
  it("hands pg its socket back as it found it, and counts the rows copied", async () => {
    const socket = (client() as unknown as { connection: { stream: NodeJS.EventEmitter } }).connection.stream;
    const readers = socket.listeners("data");
    expect(readers).toHaveLength(1);
    const stream = client().query(copyOut("COPY (SELECT i FROM generate_series(1, 1234) i) TO STDOUT"));
    const bytesRead = (await bytes(stream)).length;
    expect(bytesRead).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.listeners("data")).toEqual(readers);
    expect(socket.listenerCount("readable")).toBe(0);
    expect((stream as unknown as { rowCount: number }).rowCount).toBe(1234);
  });
});

describe("a copy whose client ends before it is read", () => {
  it("fails the stream without an uncaught error (a run canceled as its source's copy starts)", { timeout: 60_000 }, async () => {
    const scratch = await createScratchDatabase("ds_copy_out_end");
    try {
      const script = path.join(process.cwd(), "tests/fixtures/scripts/copy-out-ended.ts");
      // An uncaught error would end the child with a non-zero code: execFile rejects.
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script, scratch.url]);
      expect(stdout.trim()).toBe("ok Connection terminated | Connection terminated");
    } finally {
      await scratch.drop();
    }
  });
});
