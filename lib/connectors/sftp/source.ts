// The SFTP source: the configured file (`<file_path>/<file_name>.csv`), and any other data file of
// that directory a model names, copied over SFTP into the file layer's private temporary directory
// and read there by DuckDB in its isolated child (files/query.ts). A model names files as the
// discovered stream does, `SELECT * FROM "people.csv"`, or by path ('archive/2024.csv').
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { modelSelect } from "../shared/sql";
import { discoverFiles, FILE_EXTENSIONS, queryFiles, readFiles, readFilesFingerprinted } from "../files/query";
import type { RemoteFiles } from "../files/remote-files";
import { sftpSourceConfig, type SftpSourceConfig } from "./config";
import { sftpSourceDefinition } from "./definition";
import { remoteJoin } from "./transport";
import { SftpFiles } from "./remote";

/** Each error's sentence without any secret of the configuration (ssh2's messages carry none, but a path could). */
function scrub(config: Row, err: unknown): ConnectorError {
  const message = redact(errorMessage(err), secretValues(config, sftpSourceDefinition));
  return new ConnectorError(message, (err as { code?: string }).code);
}

async function withFiles<T>(config: Row, signal: AbortSignal | undefined, work: (files: SftpFiles, settings: SftpSourceConfig) => Promise<T>): Promise<T> {
  let files: SftpFiles | undefined;
  try {
    const settings = sftpSourceConfig(config);
    files = new SftpFiles(settings.target, settings.filePath, signal);
    return await work(files, settings);
  } catch (err) {
    throw scrub(config, err);
  } finally {
    await files?.close();
  }
}

/** The configured file only: what discovery offers, as the reference's does. */
function configuredFileOnly(files: SftpFiles, key: string): RemoteFiles {
  return {
    urlPrefix: files.urlPrefix,
    root: files.root,
    list: async (prefix, limit, signal) => (await files.list(prefix, limit, signal)).filter((e) => e.key === key),
    download: (entry, signal) => files.download(entry, signal),
    upload: () => Promise.reject(new ConnectorError("The SFTP source does not write.")),
  };
}

const limitsOf = (config: Row) => ({ query_timeout: typeof config.operation_timeout === "number" ? config.operation_timeout : 60 });

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(sftpSourceDefinition, config, () =>
    withFiles(config, undefined, async (files, settings) => {
      const session = await files.open();
      const path = remoteJoin(settings.filePath, settings.fileName);
      const entry = await session.stat(path);
      if (!entry?.isFile) return { ok: false, details: `Connected to ${settings.target.host}:${settings.target.port}, but there is no file "${path}" there.` };
      const pin = settings.target.hostKeyFingerprint ? "host key as pinned" : `host key ${session.serverFingerprint}; set host_key_fingerprint to it to pin it`;
      return { ok: true, details: `Connected to ${settings.target.host}:${settings.target.port} as ${settings.target.username} (${pin}); "${path}" has ${entry.size} bytes.` };
    }),
  );
}

async function discover(config: Row): Promise<Catalog> {
  return withFiles(config, undefined, async (files, settings) => {
    const key = `${files.root}${settings.fileName}`;
    const catalog = await discoverFiles(configuredFileOnly(files, key), FILE_EXTENSIONS.csv, limitsOf(config));
    if (catalog.streams.length === 0) throw new ConnectorError(`There is no file "${key}" on the SFTP server.`, "not_found");
    return catalog;
  });
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  return withFiles(config, undefined, (files) => queryFiles(files, sql, limit, limitsOf(config)));
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  let files: SftpFiles | undefined;
  try {
    const settings = sftpSourceConfig(config);
    files = new SftpFiles(settings.target, settings.filePath, options.signal);
    yield* readFiles(files, options, limitsOf(config));
  } catch (err) {
    throw scrub(config, err);
  } finally {
    await files?.close();
  }
}

async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  let files: SftpFiles | undefined;
  try {
    const settings = sftpSourceConfig(config);
    files = new SftpFiles(settings.target, settings.filePath, options.signal);
    yield* readFilesFingerprinted(files, options, limitsOf(config));
  } catch (err) {
    throw scrub(config, err);
  } finally {
    await files?.close();
  }
}

export const sftpSource: SourceConnector = {
  definition: sftpSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (sql) => void modelSelect(sql, "postgresql"),
  read,
  readFingerprinted,
};
