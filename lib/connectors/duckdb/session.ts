// A locked-down DuckDB for one operation: an in-memory database that can read only the files of
// the connector's workspace directory (`<DUCKDB_DATA_DIR>/workspace-<id>`), each shown as a view,
// and optionally one DuckDB database of that directory attached read-only. Before the tenant's SQL
// runs, file access outside the directory, extension installs, writes to disk and any change of
// these settings are switched off (`enable_external_access`, `allowed_directories`,
// `lock_configuration`): a model query can name `/etc/passwd` or `COPY … TO`, and DuckDB refuses.
import { lstat, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { DuckDBConnection, StatementType } from "@duckdb/node-api";
import { env } from "@/lib/settings/env";
import { scopedWorkspaceId } from "../adapter-config";
import { ConnectorError, errorMessage } from "../shared/errors";
import { lazyModule } from "../shared/lazy-module";
import type { Row } from "../types";

/** The native DuckDB library, loaded by the first DuckDB operation (shared/lazy-module.ts). */
export const duckdbLib = lazyModule(() => import("@duckdb/node-api"));

/** File kinds shown as views, by extension (DuckDB picks the reader from it). */
const DATA_FILE = /\.(parquet|csv|tsv|json|jsonl|ndjson)(\.gz)?$/i;
/** A directory with more files than this lists only the first ones (each view reads its file's header). */
export const MAX_FILES = 200;
const MAX_DEPTH = 4;

export interface DuckSettings {
  /** The workspace's directory, real path, no trailing slash. */
  dir: string;
  /** Real path of the database file to attach, when configured. */
  databaseFile?: string;
  queryTimeoutMs: number;
  memoryLimitMb: number;
}

const quoteText = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The directory and limits of `config`; throws ConnectorError with what the operator or user must do. */
export async function duckSettings(config: Row): Promise<DuckSettings> {
  const root = env.DUCKDB_DATA_DIR;
  if (!root) {
    throw new ConnectorError(
      "The DuckDB source is not enabled on this server: its operator sets DUCKDB_DATA_DIR to the directory that holds the workspaces' files.",
    );
  }
  const workspaceId = scopedWorkspaceId(config);
  if (workspaceId === undefined) throw new ConnectorError("The DuckDB source runs only for a workspace.");
  const name = `workspace-${workspaceId}`;
  let dir: string;
  try {
    dir = await realpath(path.join(root, name));
  } catch {
    throw new ConnectorError(
      `This workspace has no data directory yet: the server's operator creates ${name} in DUCKDB_DATA_DIR and puts the files there.`,
    );
  }
  const queryTimeout = typeof config.query_timeout === "number" ? config.query_timeout : 60;
  const memory = typeof config.memory_limit_mb === "number" ? config.memory_limit_mb : 256;
  const file = typeof config.database_file === "string" ? config.database_file.trim() : "";
  return {
    dir,
    databaseFile: file === "" ? undefined : await databaseFile(dir, file),
    queryTimeoutMs: queryTimeout * 1000,
    memoryLimitMb: memory,
  };
}

/** Settings over a directory the server chose (the file layer's temporary copy), with `config`'s limits. */
export async function directorySettings(dir: string, config: Row): Promise<DuckSettings> {
  const queryTimeout = typeof config.query_timeout === "number" ? config.query_timeout : 60;
  const memory = typeof config.memory_limit_mb === "number" ? config.memory_limit_mb : 256;
  return { dir: await realpath(dir), queryTimeoutMs: queryTimeout * 1000, memoryLimitMb: memory };
}

/** How an operation finds its directory and limits: the workspace's (duckSettings) or another. */
export type SettingsOf = (config: Row) => Promise<DuckSettings>;

/** `file` inside `dir`: relative, no `..`, no link out of it, a regular file. */
async function databaseFile(dir: string, file: string): Promise<string> {
  if (path.isAbsolute(file) || file.split(/[\\/]/).includes("..") || file.includes("\0")) {
    throw new ConnectorError(
      "database_file must be a path inside the workspace's data directory, relative to it, without `..`.",
    );
  }
  const missing = new ConnectorError(
    `database_file: there is no file "${file}" in the workspace's data directory.`,
  );
  const real = await realpath(path.join(dir, file)).catch(() => {
    throw missing;
  });
  if (!real.startsWith(`${dir}${path.sep}`) || !(await lstat(real)).isFile()) throw missing;
  return real;
}

/** Data files under `dir` (no links, no hidden files), as paths relative to it, sorted. */
export async function dataFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (found.length >= MAX_FILES || e.name.startsWith(".")) continue;
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory() && depth < MAX_DEPTH) await walk(child, depth + 1);
      else if (e.isFile() && DATA_FILE.test(e.name)) found.push(child);
    }
  };
  await walk("", 0);
  return found;
}

export interface DuckSession {
  conn: DuckDBConnection;
  /** Views of the directory's files (their relative paths) and whether a database is attached. */
  files: string[];
  attached: boolean;
  close(): void;
}

/** The catalog name of the attached database file. */
export const ATTACHED = "source_db";

export async function openSession(s: DuckSettings): Promise<DuckSession> {
  const { DuckDBInstance } = await duckdbLib.load();
  const instance = await DuckDBInstance.create(":memory:", {
    threads: "2",
    memory_limit: `${s.memoryLimitMb}MB`,
    temp_directory: "",
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    allow_community_extensions: "false",
    // The server user's stored DuckDB secrets (~/.duckdb/stored_secrets, e.g. cloud keys) are never
    // loaded into a tenant's session, and asking for them names no server path.
    allow_persistent_secrets: "false",
  });
  const conn = await instance.connect();
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  try {
    await conn.run("SET TimeZone = 'UTC'").catch(() => undefined);
    if (s.databaseFile) {
      await conn
        .run(`ATTACH ${quoteText(s.databaseFile)} AS ${ATTACHED} (READ_ONLY)`)
        .catch((err: unknown) => {
          throw new ConnectorError(
            `database_file could not be opened as a DuckDB database: ${describeDuckError(err, s)}`,
          );
        });
    }
    const files = await dataFiles(s.dir);
    for (const f of files) {
      // A file DuckDB cannot read is left out rather than failing every query of the directory.
      await conn
        .run(`CREATE VIEW memory.main.${quoteIdent(f)} AS SELECT * FROM ${quoteText(path.join(s.dir, f))}`)
        .catch(() => undefined);
    }
    const searchPath = s.databaseFile ? `${ATTACHED}.main,memory.main` : "memory.main";
    await conn.run(`SET search_path = ${quoteText(searchPath)}`);
    await conn.run(`SET allowed_directories = [${quoteText(`${s.dir}${path.sep}`)}]`);
    await conn.run("SET enable_external_access = false");
    await conn.run("SET lock_configuration = true");
    return { conn, files, attached: Boolean(s.databaseFile), close };
  } catch (err) {
    close();
    throw err;
  }
}

/** Runs `work` on a fresh session and closes it, whatever happens. */
export async function withSession<T>(
  config: Row,
  work: (session: DuckSession, s: DuckSettings) => Promise<T>,
  settingsOf: SettingsOf = duckSettings,
): Promise<T> {
  const s = await settingsOf(config);
  const session = await openSession(s).catch((err: unknown) => {
    throw err instanceof ConnectorError ? err : new ConnectorError(describeDuckError(err, s));
  });
  try {
    return await work(session, s);
  } finally {
    session.close();
  }
}

/**
 * Throws ConnectorError unless `sql` is one SELECT as DuckDB itself parses it (the shared text check
 * runs first; this one also catches what only DuckDB's grammar allows, e.g. `FROM t` alone is a SELECT).
 */
export async function assertSelect(conn: DuckDBConnection, sql: string, s: DuckSettings): Promise<void> {
  let type: StatementType;
  try {
    const statements = await conn.extractStatements(sql);
    if (statements.count !== 1)
      throw new ConnectorError(
        "The query must be a single statement: remove the `;` and everything after it.",
      );
    type = (await statements.prepare(0)).statementType;
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw new ConnectorError(describeDuckError(err, s));
  }
  if (type !== (await duckdbLib.load()).StatementType.SELECT)
    throw new ConnectorError("The query must be a SELECT statement: models only read rows.");
}

/** Runs `work`, interrupting the connection when it takes longer than the query timeout. */
export async function withTimeout<T>(
  conn: DuckDBConnection,
  s: DuckSettings,
  work: () => Promise<T>,
): Promise<T> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.interrupt();
  }, s.queryTimeoutMs);
  try {
    return await work();
  } catch (err) {
    if (timedOut)
      throw new ConnectorError(
        `The query took longer than its timeout of ${s.queryTimeoutMs / 1000} s and was stopped.`,
      );
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** DuckDB's message, first line, with the server's directory replaced by the tenant's view of it. */
export function describeDuckError(err: unknown, s?: Pick<DuckSettings, "dir">): string {
  let message = errorMessage(err).split("\n")[0].trim();
  if (s?.dir) {
    message = message.split(`${s.dir}${path.sep}`).join("").split(s.dir).join("<data directory>");
    message = message.split(path.dirname(s.dir)).join("<DUCKDB_DATA_DIR>");
  }
  if (/file system operations are disabled/i.test(message)) {
    return `${message.replace(/ - file system operations are disabled by configuration/i, "")}: a model reads only the files of the workspace's data directory, by their view names (e.g. "people.csv").`;
  }
  return message;
}
