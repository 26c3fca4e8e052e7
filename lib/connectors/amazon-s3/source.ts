// The AmazonS3 source: model queries (DuckDB SQL) over the bucket's CSV, JSON lines and Parquet
// files, through the file layer (lib/connectors/files): the files a query names are copied into a
// private temporary directory and read there by the DuckDB child, locked to that directory.
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { ConnectorError, safeCheck } from "../shared/errors";
import { modelSelect } from "../shared/sql";
import { ALL_EXTENSIONS, FILE_EXTENSIONS, discoverFiles, queryFiles, readFiles, readFilesFingerprinted } from "../files";
import { describeS3Error, s3Client } from "./client";
import { sourceConfig, type S3SourceConfig } from "./config";
import { s3SourceDefinition } from "./definition";
import { S3Files } from "./s3-files";

function open(config: Row): { s: S3SourceConfig; remote: S3Files; close: () => void } {
  const s = sourceConfig(config);
  const client = s3Client(s);
  return { s, remote: new S3Files(client, s.bucket, s.root), close: () => client.destroy() };
}

const asSentence = (err: unknown, s: S3SourceConfig) =>
  err instanceof ConnectorError ? err : new ConnectorError(describeS3Error(err, s));

async function withRemote<T>(config: Row, work: (remote: S3Files, s: S3SourceConfig) => Promise<T>): Promise<T> {
  const { s, remote, close } = open(config);
  try {
    return await work(remote, s);
  } catch (err) {
    throw asSentence(err, s);
  } finally {
    close();
  }
}

const extensionsOf = (s: S3SourceConfig): readonly string[] => (s.fileType ? FILE_EXTENSIONS[s.fileType] : ALL_EXTENSIONS);

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(s3SourceDefinition, config, () =>
    withRemote(config, async (remote, s) => {
      const entries = await remote.list(s.root, 1000);
      const wanted = extensionsOf(s);
      const files = entries.filter((e) => wanted.some((ext) => e.key.toLowerCase().endsWith(ext))).length;
      const where = `s3://${s.bucket}/${s.root}`;
      return {
        ok: true,
        details: `Connected to ${where}: ${files}${entries.length >= 1000 ? "+" : ""} ${s.fileType ?? "data"} file${files === 1 ? "" : "s"} there.`,
      };
    }),
  );
}

const discover = (config: Row): Promise<Catalog> =>
  withRemote(config, (remote, s) => discoverFiles(remote, extensionsOf(s)));

const query = (config: Row, sql: string, limit: number): Promise<QueryResult> =>
  withRemote(config, (remote) => queryFiles(remote, sql, limit));

/** Runs one of the layer's reads with a client that lives as long as the read. */
async function* streamed<T>(config: Row, read: (remote: S3Files) => AsyncGenerator<T>): AsyncGenerator<T> {
  const { s, remote, close } = open(config);
  try {
    yield* read(remote);
  } catch (err) {
    throw asSentence(err, s);
  } finally {
    close();
  }
}

export const s3Source: SourceConnector = {
  definition: s3SourceDefinition,
  check,
  discover,
  query,
  checkQuery: (sql) => void modelSelect(sql, "postgresql"),
  read: (config: Row, options: ReadOptions) => streamed(config, (remote) => readFiles(remote, options)),
  readFingerprinted: (config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncIterable<FingerprintedBatch> =>
    streamed(config, (remote) => readFilesFingerprinted(remote, options)),
};
