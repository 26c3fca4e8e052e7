// `npm run admin -- reset-password` finds the database `npm start` uses whatever port its embedded
// PostgreSQL runs on, and says in a sentence (not a stack trace) when it cannot reach one.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { DEFAULT_EMBEDDED_PORT, startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import { migrateDatabase } from "@/lib/db/migrate";
import { closedPort } from "@/tests/support/connectors";
import { createScratchDatabase } from "@/tests/support/db";

const dir = mkdtempSync(path.join(tmpdir(), "ds-admin-"));
const EMAIL = "operator@example.com";
let pg: EmbeddedDatabase | undefined;

/** The command as an operator types it, with only the settings given (none inherited that could point elsewhere). */
function runAdmin(settings: Record<string, string>, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runAdminAs(undefined, settings, ...args);
}

/** The command run by another OS user (a uid), as an operator logged in as someone else would. */
function runAdminAs(uid: number | undefined, settings: Record<string, string>, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _url, EMBEDDED_PG_PORT: _port, DATA_DIR: _dir, ...inherited } = process.env;
  const child = spawn("node_modules/.bin/tsx", ["--tsconfig", "tsconfig.node.json", "scripts/admin.ts", ...args], {
    env: { ...inherited, LOG_LEVEL: "silent", ...(uid === undefined ? {} : { HOME: tmpdir() }), ...settings },
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

async function storedHash(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ password_hash: string }>("SELECT password_hash FROM users WHERE email = $1", [EMAIL])).rows[0].password_hash;
  } finally {
    await client.end();
  }
}

const printedPassword = (stdout: string) => /^\|\s+([A-Za-z0-9_-]{16})\s+\|$/m.exec(stdout)?.[1];

/** A sentence, not a trace: no stack frames, no Prisma or driver internals. */
function expectSentence(stderr: string) {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/prisma|invocation|node_modules/i);
  expect(stderr.trim().split("\n")).toHaveLength(1);
}

beforeAll(async () => {
  // What `npm start` does with EMBEDDED_PG_PORT set to a port of its own: the database runs on it.
  pg = await startEmbeddedPostgres({ dataDir: dir, port: await closedPort() });
  await migrateDatabase(pg.url);
  const client = new Client({ connectionString: pg.url });
  await client.connect();
  await client.query("INSERT INTO users (email, name, password_hash, updated_at) VALUES ($1, 'Operator', 'none', now())", [EMAIL]);
  await client.end();
}, 300_000);

afterAll(async () => {
  await pg?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run admin -- reset-password, and the database of npm start", () => {
  it("reaches the embedded PostgreSQL npm start runs on a port of its own, without being told the port", async () => {
    expect(pg!.port).not.toBe(DEFAULT_EMBEDDED_PORT);
    const result = await runAdmin({ DATA_DIR: dir }, "reset-password", EMAIL);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const password = printedPassword(result.stdout);
    expect(password).toBeTruthy();
    expect(await verifyPassword(password!, await storedHash(pg!.url))).toBe(true);
  }, 120_000);

  it("says in a sentence when DATABASE_URL names a database nothing answers for", async () => {
    const port = await closedPort();
    const result = await runAdmin({ DATABASE_URL: `postgresql://postgres:secret-pw@127.0.0.1:${port}/datasync` }, "reset-password", EMAIL);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Could not reach the database (DATABASE_URL, 127.0.0.1:${port}/datasync): nothing answers at that address.`);
    expect(result.stderr).toContain("Run this command in the folder where you run `npm start`");
    expect(result.stderr).not.toContain("secret-pw");
    expectSentence(result.stderr);
  }, 120_000);

  it("says in a sentence when DATABASE_URL names a database without Datasync's tables (and creates none)", async () => {
    const scratch = await createScratchDatabase("ds_admin");
    try {
      const result = await runAdmin({ DATABASE_URL: scratch.url }, "reset-password", EMAIL);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/^The database \(DATABASE_URL, .+\) has no Datasync tables: it is not the one `npm start` uses/);
      expectSentence(result.stderr);
      const client = new Client({ connectionString: scratch.url });
      await client.connect();
      expect((await client.query("SELECT to_regclass('public.users') AS t")).rows[0].t).toBeNull();
      await client.end();
    } finally {
      await scratch.drop();
    }
  }, 120_000);

  it("says in a sentence when it runs in a folder without the database, instead of making a new one", async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), "ds-admin-empty-"));
    try {
      const result = await runAdmin({ DATA_DIR: elsewhere }, "reset-password", EMAIL);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`There is no Datasync database in ${elsewhere} (DATA_DIR), and DATABASE_URL is not set.`);
      expectSentence(result.stderr);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 120_000);

  it("starts the embedded PostgreSQL for itself when npm start is not running, and stops it after", async () => {
    await pg!.stop();
    pg = undefined;
    const port = await closedPort();
    const result = await runAdmin({ DATA_DIR: dir, EMBEDDED_PG_PORT: String(port) }, "reset-password", EMAIL);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    // Back as npm start would run it, to read what the command stored.
    pg = await startEmbeddedPostgres({ dataDir: dir, port: await closedPort() });
    expect(await verifyPassword(printedPassword(result.stdout)!, await storedHash(pg.url))).toBe(true);
  }, 180_000);

  it("takes a postmaster.pid whose PID now runs another program for stale: never connects to its port, starts its own", async () => {
    await pg!.stop();
    pg = undefined;
    // Something else listens on the port the file recorded; the file's PID is alive but not PostgreSQL (this test's process).
    let connections = 0;
    const other = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    writeFileSync(path.join(dir, "postgres", "postmaster.pid"), `${process.pid}\n${path.join(dir, "postgres")}\n0\n${port}\n\n127.0.0.1\n`);
    try {
      const result = await runAdmin({ DATA_DIR: dir, EMBEDDED_PG_PORT: String(await closedPort()) }, "reset-password", EMAIL);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    pg = await startEmbeddedPostgres({ dataDir: dir, port: await closedPort() });
  }, 180_000);

  it("says the database folder cannot be read by this OS user, rather than that there is none", async () => {
    if (process.getuid?.() !== 0) return; // Only root can run the command as another user here.
    const result = await runAdminAs(65534, { DATA_DIR: dir }, "reset-password", EMAIL);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`The database folder ${path.join(dir, "postgres")} cannot be read by this OS user`);
    expect(result.stderr).toContain("run this command as the user that runs `npm start`");
    expect(result.stderr).not.toContain("There is no Datasync database");
    expectSentence(result.stderr);
  }, 120_000);
});
