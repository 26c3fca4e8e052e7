// The database an operator command works on: the one `npm start` uses with the same settings.
//  - DATABASE_URL set: that database.
//  - else the embedded PostgreSQL under DATA_DIR. While `npm start` runs it, a second instance
//    cannot open the folder: the command connects to the running one, on the port PostgreSQL itself
//    wrote into postmaster.pid (so EMBEDDED_PG_PORT need not be repeated, and a command never reaches
//    another PostgreSQL that happens to listen on the default port). When nothing runs it, the
//    command starts it (on EMBEDDED_PG_PORT) for its own use and stops it after.
// It never creates a database: a folder without one, or a database without Datasync's tables, is
// almost always a command run from another folder or with other settings than `npm start`, and is
// answered with a sentence saying so rather than with an empty new database.
import { accessSync, constants, existsSync, readFileSync, rmSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { env } from "../../lib/settings/env";
import { setProcessDatabase } from "../../lib/settings/process-database";
import { startEmbeddedPostgres } from "../../lib/db/embedded";
import { dataDir } from "../../lib/db/runtime";

/** A failure the operator can act on, said in a sentence (no stack trace). */
export class AdminDatabaseError extends Error {
  /** The driver's code when a connection failed (ECONNREFUSED, 28P01…). */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface AdminDatabase {
  url: string;
  /** Where it is, in words: for the messages. */
  where: string;
  stop(): Promise<void>;
}

/**
 * Whether the process `pid` is a PostgreSQL server: its name in /proc (Linux). A postmaster.pid
 * left by a crash may name a PID the system has since given to another program; taking it for
 * PostgreSQL would send the command to whatever listens on the port the file recorded. Without
 * /proc (or without the right to read it), a process that exists counts (EPERM: run by another OS
 * user, as the postgres user runs it under root).
 */
export function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("postgres");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && existsSync("/proc/self")) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The port and process of a running embedded PostgreSQL, from its postmaster.pid; null when none runs. */
export function runningPostmaster(pgDir: string): { pid: number; port: number } | null {
  const file = path.join(pgDir, "postmaster.pid");
  if (!existsSync(file)) return null;
  // Line 1: the postmaster's PID; line 4: its port (PostgreSQL's documented layout of the file).
  const lines = readFileSync(file, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid < 1 || !Number.isInteger(port) || port < 1) return null;
  if (isPostgresProcess(pid)) return { pid, port };
  // Left by a crash. When its PID now runs another program, PostgreSQL would refuse to start while
  // the file is there (it takes a live PID for a server still running): the file is stale, so it goes.
  if (existsSync(`/proc/${pid}`)) rmSync(file, { force: true });
  return null;
}

/** The folder exists but this OS user may not look into it (it belongs to the user that runs `npm start`). */
function unreadable(folder: string): boolean {
  try {
    accessSync(folder, constants.R_OK | constants.X_OK);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "EACCES" || code === "EPERM";
  }
}

/** Why a connection failed, in words, from node-postgres's error. */
function reason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  switch (e.code) {
    case "ECONNREFUSED":
      return "nothing answers at that address";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "ETIMEDOUT":
      return "the connection timed out";
    case "28P01":
    case "28000":
      return "the server refused the user or password";
    case "3D000":
      return "the server has no database of that name";
    default:
      return e.message ?? String(err);
  }
}

const SAME_SETTINGS =
  "Run this command in the folder where you run `npm start`, with the same DATABASE_URL, DATA_DIR and EMBEDDED_PG_PORT it has.";

/** Connects once and checks that Datasync's tables are there, so the command fails here in a sentence. */
async function probe(url: string, where: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new AdminDatabaseError(`Could not reach the database (${where}): ${reason(err)}. ${SAME_SETTINGS}`, (err as { code?: string }).code);
  }
  try {
    const { rows } = await client.query<{ users: string | null }>("SELECT to_regclass('public.users')::text AS users");
    if (!rows[0]?.users) {
      throw new AdminDatabaseError(
        `The database (${where}) has no Datasync tables: it is not the one \`npm start\` uses, or the server never started on it. ${SAME_SETTINGS}`,
      );
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** "host:port/database" of a URL, never its password. */
function describeUrl(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
}

/** Opens the database `npm start` uses with the current settings, or throws an AdminDatabaseError. */
export async function openAdminDatabase(): Promise<AdminDatabase> {
  if (env.DATABASE_URL) {
    const url = env.DATABASE_URL;
    const where = `DATABASE_URL, ${describeUrl(url)}`;
    await probe(url, where);
    setProcessDatabase({ url, embedded: false });
    return { url, where, stop: async () => undefined };
  }
  const dir = dataDir();
  const pgDir = path.join(dir, "postgres");
  const stateFile = path.join(dir, "embedded-postgres.json");
  if (unreadable(dir) || unreadable(pgDir)) {
    throw new AdminDatabaseError(
      `The database folder ${pgDir} cannot be read by this OS user (${userInfo().username}): run this command as the user that runs \`npm start\`.`,
    );
  }
  if (!existsSync(path.join(pgDir, "PG_VERSION")) || !existsSync(stateFile)) {
    throw new AdminDatabaseError(
      `There is no Datasync database in ${dir} (DATA_DIR), and DATABASE_URL is not set. ${SAME_SETTINGS}`,
    );
  }
  const running = runningPostmaster(pgDir);
  if (running) {
    const { password } = JSON.parse(readFileSync(stateFile, "utf8")) as { password: string };
    const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${running.port}/datasync`;
    const where = `the embedded PostgreSQL of ${dir}, running on port ${running.port}`;
    const reached = await probe(url, where).then(
      () => true,
      (err: unknown) => {
        // Nothing listens on its port: not our server after all (it stopped, or the PID is another
        // PostgreSQL's); handled as when nothing runs it.
        if (err instanceof AdminDatabaseError && err.code === "ECONNREFUSED") return false;
        throw err;
      },
    );
    if (reached) {
      setProcessDatabase({ url, embedded: true });
      return { url, where, stop: async () => undefined };
    }
  }
  // Nobody runs it: start it for this command alone (startEmbeddedPostgres says so when the port is taken).
  const embedded = await startEmbeddedPostgres({ dataDir: dir, port: env.EMBEDDED_PG_PORT }).catch((err: unknown) => {
    throw new AdminDatabaseError(err instanceof Error ? err.message : String(err));
  });
  const where = `the embedded PostgreSQL of ${dir}, started on port ${embedded.port} for this command`;
  try {
    await probe(embedded.url, where);
  } catch (err) {
    await embedded.stop().catch(() => undefined);
    throw err;
  }
  setProcessDatabase({ url: embedded.url, embedded: true });
  return { url: embedded.url, where, stop: () => embedded.stop() };
}
