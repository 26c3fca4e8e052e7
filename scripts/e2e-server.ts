// The server Playwright tests run against: the real product (`npm start`, as a child process) on a
// fresh database, with a known admin. TEST_DATABASE_URL: a new database on that server; else a fresh
// embedded one. Everything the child should differ in is its environment, set here.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { freePort } from "../tests/support/free-port";

export const E2E_ADMIN = { email: "admin@example.com", password: "e2e-admin-password" };

type ServerEnv = Record<string, string>;

/** The variables that put the child on a fresh application database. */
async function freshDatabase(): Promise<ServerEnv> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) {
    // E2E_DATA_DIR: a second server of a test (e2e/support/second-server.ts) keeps its own files.
    const dir = path.resolve(process.env.E2E_DATA_DIR ?? ".data/e2e");
    rmSync(dir, { recursive: true, force: true });
    // A port of the system's choosing unless one is given: another test run may hold any fixed one.
    const port = process.env.EMBEDDED_PG_PORT ?? String(await freePort());
    // The tests that open the server's database themselves (e2e/support/app-database.ts) read it here.
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "embedded-port"), port);
    return { DATA_DIR: dir, EMBEDDED_PG_PORT: port };
  }
  const client = new Client({ connectionString: admin });
  await client.connect();
  // Only databases nobody is connected to: another e2e server (another E2E_PORT) may be using its own.
  const stale = await client.query<{ datname: string }>(
    `SELECT datname FROM pg_database d WHERE datname LIKE 'ds_e2e_%'
       AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
  );
  for (const { datname } of stale.rows) {
    // Without FORCE: a database another live test server still uses is left alone.
    await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
  }
  const name = `ds_e2e_${randomBytes(4).toString("hex")}`;
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  // Connected for as long as this process lives: another e2e server starting meanwhile drops only
  // databases nobody is connected to, and the child holds no connection while it builds the console.
  const keeper = new Client({ connectionString: url.toString() });
  await keeper.connect();
  keeper.on("error", () => undefined);
  return {
    DATABASE_URL: url.toString(),
    DATA_DIR: process.env.DATA_DIR ?? path.resolve(".data/e2e-secrets"),
  };
}

/** Where the server keeps the mails it does not send (MAIL_DIR): e2e/support/mailbox.ts reads them. */
const e2eMailDir = (port: string | number) => path.resolve(".data/e2e-mail", String(port));

async function main() {
  const mailDir = e2eMailDir(process.env.PORT ?? "0");
  rmSync(mailDir, { recursive: true, force: true });
  const env: ServerEnv = {
    ...(await freshDatabase()),
    // Without SMTP, invitation and reset links are logged; the tests read them from these files.
    MAIL_DIR: process.env.MAIL_DIR ?? mailDir,
    ADMIN_EMAIL: E2E_ADMIN.email,
    ADMIN_PASSWORD: E2E_ADMIN.password,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    // Tests stand in for a reverse proxy: they send X-Forwarded-For to act from several addresses.
    TRUST_PROXY: process.env.TRUST_PROXY ?? "1",
    // The tests' connectors target PostgreSQL, MariaDB and HTTP servers on this machine.
    OUTBOUND_ALLOW_PRIVATE: process.env.OUTBOUND_ALLOW_PRIVATE ?? "127.0.0.1,::1",
    // The seeded admin creates (and invites into) every test's workspace: the per-user caps
    // (lib/services/accounts/mail-caps.ts) would stop the suite, so they are lifted unless a spec sets them.
    // The per-workspace invitation cap keeps its default (e2e/api/security-accounts.spec.ts meets it).
    WORKSPACE_MAX_CREATED_PER_USER_PER_DAY: process.env.WORKSPACE_MAX_CREATED_PER_USER_PER_DAY ?? "1000000",
    INVITATION_MAX_PER_USER_PER_HOUR: process.env.INVITATION_MAX_PER_USER_PER_HOUR ?? "1000000",
    // The DuckDB source's files: the tests write each workspace's into it (e2e/api/duckdb-source.spec.ts).
    DUCKDB_DATA_DIR: process.env.DUCKDB_DATA_DIR ?? path.resolve(".data/e2e-duckdb"),
  };
  const server = spawn(process.execPath, ["--import", "tsx", path.resolve("scripts/start.ts")], {
    env: { ...process.env, ...env },
    stdio: "inherit",
  });
  // Playwright stops this process (or its process group); the server stops with it.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(signal, () => server.kill(signal));
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

void main();
