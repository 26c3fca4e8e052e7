// Which remote files a model query names, and the query rewritten to name their local copies.
// A query names files as the reference's do, by URL (`'s3://bucket/exports/*.csv'`), or relative to
// the connector's path (`'people.csv'`, `"people.csv"` as a view, `'2024/*.parquet'`). Only names
// that match remote files are rewritten; every other literal stays as it is. What a query can then
// read is DuckDB's business: it may open nothing outside the copies' directory (see query.ts).
import { ConnectorError } from "../shared/errors";
import { isGlob, listPrefix, matchesGlob } from "./glob";
import type { RemoteEntry, RemoteFiles } from "./remote-files";
import { quoteSqlText, replaceTokens, sqlTokens, type SqlToken } from "./sql-literals";

/** Where a remote file goes inside the copies' directory: its path there, relative. */
export interface PlannedFile {
  entry: RemoteEntry;
  local: string;
}

export interface FilePlan {
  files: PlannedFile[];
  /** The query naming the local copies as `<dir>/<local>`, `<dir>` still to be filled in. */
  sql: (dir: string) => string;
}

/** Files outside the configured path are copied under this hidden directory (no view is made for them). */
const OUTSIDE = ".outside";
/** At most this many keys are listed under one prefix. */
export const MAX_LISTED = 10_000;

/** True when `key` is a safe relative path: no empty, `.` or `..` segments, no NUL, no leading `/`. */
export function safeKey(key: string): boolean {
  if (key === "" || key.includes("\0") || key.startsWith("/")) return false;
  return key.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");
}

/** The local path (relative to the copies' directory) of a key named by a pattern. */
function localOf(remote: RemoteFiles, underRoot: boolean, key: string): string {
  return underRoot ? key.slice(remote.root.length) : `${OUTSIDE}/${key.replace(/^\/+/, "")}`;
}

type Lister = (prefix: string) => Promise<RemoteEntry[]>;

/** Lists each prefix once per plan; a prefix inside one already listed is served from it. */
function cachedLister(remote: RemoteFiles, signal?: AbortSignal): Lister {
  const done = new Map<string, RemoteEntry[]>();
  return async (prefix) => {
    for (const [p, entries] of done)
      if (prefix.startsWith(p) && entries.length < MAX_LISTED) return entries.filter((e) => e.key.startsWith(prefix));
    const entries = await remote.list(prefix, MAX_LISTED, signal);
    done.set(prefix, entries);
    return entries;
  };
}

export async function planQuery(remote: RemoteFiles, sql: string, signal?: AbortSignal): Promise<FilePlan> {
  const list = cachedLister(remote, signal);
  const files = new Map<string, PlannedFile>();
  const rewrites: { token: SqlToken; local: string }[] = [];
  const add = (entry: RemoteEntry, local: string) => files.set(local, { entry, local });

  for (const token of sqlTokens(sql)) {
    const value = token.value;
    if (token.kind === "identifier") {
      // A view of a file under the configured path ("people.csv"), as the DuckDB source names them.
      if (!/\.[A-Za-z0-9]+$/.test(value) || !safeKey(value)) continue;
      const key = remote.root + value;
      const entry = (await list(remote.root)).find((e) => e.key === key);
      if (entry) add(entry, value);
      continue;
    }
    let pattern: string;
    let explicit = false;
    if (value.startsWith(remote.urlPrefix)) {
      pattern = value.slice(remote.urlPrefix.length);
      explicit = true;
    } else if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) || value.startsWith("/") || !/[./*]/.test(value)) {
      continue;
    } else pattern = remote.root + value;
    const checkable = pattern.replace(/^\/+/, "");
    if (!safeKey(checkable)) {
      if (!explicit) continue;
      throw new ConnectorError(
        `The query names ${value}, which is not a file name this connector reads: a name may not contain empty, "." or ".." parts.`,
      );
    }
    const underRoot = pattern.startsWith(remote.root);
    const matched = (await list(listPrefix(pattern))).filter((e) => matchesGlob(pattern, e.key) && safeKey(e.key.replace(/^\/+/, "")));
    if (matched.length === 0) {
      if (!explicit) continue;
      throw new ConnectorError(`No file matches ${value}: check the name, or list the files with discover.`);
    }
    for (const entry of matched) add(entry, localOf(remote, underRoot, entry.key));
    rewrites.push({ token, local: localOf(remote, underRoot, pattern) });
  }
  return {
    files: [...files.values()],
    sql: (dir) => {
      const replacements = new Map<SqlToken, string>();
      for (const r of rewrites) replacements.set(r.token, quoteSqlText(`${dir}/${r.local}`));
      return replaceTokens(sql, replacements);
    },
  };
}

/** Every file under the configured path whose name ends in one of `extensions` (discovery). */
export async function planAll(
  remote: RemoteFiles,
  extensions: readonly string[],
  limit: number,
  signal?: AbortSignal,
): Promise<PlannedFile[]> {
  const entries = await remote.list(remote.root, MAX_LISTED, signal);
  const wanted = (key: string) => extensions.some((ext) => key.toLowerCase().endsWith(ext));
  return entries
    .filter((e) => wanted(e.key) && safeKey(e.key.slice(remote.root.length)))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .slice(0, limit)
    .map((entry) => ({ entry, local: entry.key.slice(remote.root.length) }));
}

export { isGlob };
