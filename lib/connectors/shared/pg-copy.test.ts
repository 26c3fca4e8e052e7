// COPY text input against a real PostgreSQL: lines pushed whole (pushLines, pieces of ~64 KB) land
// exactly as lines pushed one by one, across many pieces, with escapes and non-ASCII text.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { copyEscape, CopyInput } from "./pg-copy";

let scratch: { url: string; drop(): Promise<void> };
let client: pg.Client;

beforeAll(async () => {
  scratch = await createScratchDatabase("ds_copy_in");
  client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  await client.query("CREATE TABLE one_by_one (id int, label text); CREATE TABLE whole (id int, label text)");
});

afterAll(async () => {
  await client?.end();
  await scratch?.drop();
});

describe("CopyInput", () => {
  it("pushLines gives the table push gives, over many pieces", { timeout: 60_000 }, async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `${i}\t${copyEscape(i % 7 === 0 ? `tab\there ✓ ${"é".repeat(i % 50)}` : `row ${i}`)}`);
    const a = new CopyInput();
    for (const line of lines) a.push(`${line}\n`);
    await a.copy(client, "COPY one_by_one FROM STDIN");
    const b = new CopyInput();
    b.pushLines(lines.slice(0, 10));
    b.pushLines(lines.slice(10));
    await b.copy(client, "COPY whole FROM STDIN");
    const digest = async (table: string) =>
      (await client.query(`SELECT count(*)::int AS n, md5(string_agg(id || ':' || label, ',' ORDER BY id)) AS d FROM ${table}`)).rows[0];
    expect(await digest("whole")).toEqual(await digest("one_by_one"));
    expect((await digest("whole")).n).toBe(30_000);
    const empty = new CopyInput();
    empty.pushLines([]);
    await empty.copy(client, "COPY whole FROM STDIN");
    expect((await digest("whole")).n).toBe(30_000);
  });
});
