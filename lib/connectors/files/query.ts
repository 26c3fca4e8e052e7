// Model queries over remote files: plan which files the query names, copy them into a private
// directory (fetch.ts), and run the query there in the DuckDB source's isolated child process
// (duckdb/isolated.ts), with that directory as the only one DuckDB may read: file access elsewhere,
// URLs, extension installs and writes are switched off and locked before the query runs (duckdb/
// session.ts), so a query naming `/etc/passwd` or another path is refused by DuckDB itself. The
// copies are removed when the operation ends, also when it fails or is canceled.
import type { Catalog, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row } from "../types";
import { ConnectorError, errorMessage } from "../shared/errors";
import { isolatedDuck } from "../duckdb/isolated";
import { MAX_FILES } from "../duckdb/session";
import { fetchCopies, type LocalCopies } from "./fetch";
import { planAll, planQuery, type FilePlan } from "./plan";
import type { RemoteFiles } from "./remote-files";

/** DuckDB's limits for the operation: `query_timeout` (s) and `memory_limit_mb`; never a secret. */
export interface DuckLimits {
  query_timeout?: number;
  memory_limit_mb?: number;
}

/** Extensions DuckDB reads (its reader follows the extension), by file type. */
export const FILE_EXTENSIONS = {
  csv: [".csv", ".csv.gz", ".tsv", ".tsv.gz"],
  parquet: [".parquet"],
  json: [".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz", ".ndjson.gz"],
} as const;
export const ALL_EXTENSIONS = Object.values(FILE_EXTENSIONS).flat();

/** A DuckDB sentence about local copies, said in the store's terms. */
export function describeFileError(err: unknown, remote: RemoteFiles): string {
  const base = `${remote.urlPrefix}${remote.root}`;
  return errorMessage(err)
    .split(".outside/")
    .join(remote.urlPrefix)
    .split("<data directory>")
    .join(base.replace(/\/$/, ""))
    .split("<DUCKDB_DATA_DIR>")
    .join("<temporary directory>")
    .replace(
      /a model reads only the files of the workspace's data directory, by their view names \(e\.g\. "people\.csv"\)\./,
      `a model reads only the store's files, named by URL (e.g. '${base}people.csv') or relative to the configured path ('people.csv', "people.csv").`,
    );
}

function described(err: unknown, remote: RemoteFiles): Error {
  if (err instanceof ConnectorError) return new ConnectorError(describeFileError(err, remote), err.code);
  return err instanceof Error ? err : new Error(String(err));
}

async function withCopies<T>(
  remote: RemoteFiles,
  plan: Pick<FilePlan, "files">,
  signal: AbortSignal | undefined,
  work: (copies: LocalCopies) => Promise<T>,
): Promise<T> {
  const copies = await fetchCopies(remote, plan.files, signal);
  try {
    return await work(copies);
  } catch (err) {
    throw described(err, remote);
  } finally {
    await copies.remove();
  }
}

/** One stream per data file under the configured path (at most MAX_FILES), typed by DuckDB. */
export async function discoverFiles(
  remote: RemoteFiles,
  extensions: readonly string[],
  limits: DuckLimits = {},
  signal?: AbortSignal,
): Promise<Catalog> {
  const files = await planAll(remote, extensions, MAX_FILES, signal);
  return withCopies(remote, { files }, signal, (copies) => isolatedDuck(copies.dir).discover(limits as Row));
}

/** A preview of a model query over the files it names: at most `limit` rows. */
export async function queryFiles(
  remote: RemoteFiles,
  sql: string,
  limit: number,
  limits: DuckLimits = {},
): Promise<QueryResult> {
  const plan = await planQuery(remote, sql);
  return withCopies(remote, plan, undefined, (copies) =>
    isolatedDuck(copies.dir).query(limits as Row, plan.sql(copies.dir), limit),
  );
}

/** Streams a model query's rows in batches; the copies live as long as the read. */
export async function* readFiles(
  remote: RemoteFiles,
  options: ReadOptions,
  limits: DuckLimits = {},
): AsyncGenerator<Row[]> {
  const plan = await planQuery(remote, options.query, options.signal);
  const copies = await fetchCopies(remote, plan.files, options.signal);
  try {
    yield* isolatedDuck(copies.dir).read(limits as Row, { ...options, query: plan.sql(copies.dir) });
  } catch (err) {
    throw described(err, remote);
  } finally {
    await copies.remove();
  }
}

/** The rows of readFiles, fingerprinted by DuckDB (see SourceConnector.readFingerprinted). */
export async function* readFilesFingerprinted(
  remote: RemoteFiles,
  options: ReadOptions & { fingerprint: FingerprintOptions },
  limits: DuckLimits = {},
): AsyncGenerator<FingerprintedBatch> {
  const plan = await planQuery(remote, options.query, options.signal);
  const copies = await fetchCopies(remote, plan.files, options.signal);
  try {
    yield* isolatedDuck(copies.dir).readFingerprinted(limits as Row, { ...options, query: plan.sql(copies.dir) });
  } catch (err) {
    throw described(err, remote);
  } finally {
    await copies.remove();
  }
}
