// The embedded default: starts a real PostgreSQL under a data folder, keeps data across a restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { closedPort } from "@/tests/support/connectors";
import { startEmbeddedPostgres } from "./embedded";

const dir = mkdtempSync(path.join(tmpdir(), "ds-embedded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function query(url: string, sql: string) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("embedded PostgreSQL", () => {
  it("initialises, serves, stops and keeps its data across restarts", async () => {
    // Free now: a fixed random range can hit a port an outgoing connection holds.
    const port = await closedPort();
    const first = await startEmbeddedPostgres({ dataDir: dir, port });
    expect(first.url).toContain(`:${port}/`);
    expect(port).not.toBe(5432);
    await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir: dir, port });
    try {
      expect(await query(second.url, "SELECT v FROM kept")).toEqual([{ v: "still here" }]);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
