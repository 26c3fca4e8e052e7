// The file layer's one seam with a storage system (S3, SFTP, Google Drive): list, download, upload.
// Everything else (which files a model query names, fetching them into a private temporary
// directory, running DuckDB over the copies, writing rows into files) is the layer's, shared by all.
import type { Readable } from "node:stream";

/** A file of the remote store. `key` is its full name there (an S3 key, an absolute SFTP path). */
export interface RemoteEntry {
  key: string;
  /** Bytes, as the store reports them (the download is capped by what actually arrives). */
  size: number;
  modified?: Date;
}

/** What an upload left on the store: its name and what the store answered (an ETag, a version). */
export interface UploadResult {
  key: string;
  /** A line for the record log: `ETag "…"`, `version …`. */
  detail: string;
}

export interface RemoteFiles {
  /** How people name the store's files in a model query, e.g. `s3://bucket/`; keys follow it. */
  readonly urlPrefix: string;
  /**
   * The key prefix relative names start from (the connector's configured path), `""` or ending in
   * `/`: with root `exports/`, a query's `'people.csv'` is the key `exports/people.csv`.
   */
  readonly root: string;
  /** Every file whose key starts with `prefix` (no directories), at most `limit` of them. */
  list(prefix: string, limit: number, signal?: AbortSignal): Promise<RemoteEntry[]>;
  /** The file's bytes as a stream (the layer writes them to its private copy, capped and counted). */
  download(entry: RemoteEntry, signal?: AbortSignal): Promise<Readable>;
  /** Stores the local file at `localPath` as `key`, replacing what is there. */
  upload(localPath: string, key: string, contentType: string, signal?: AbortSignal): Promise<UploadResult>;
}
