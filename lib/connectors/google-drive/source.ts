// The GoogleDrive source. structured: the folder's CSV, JSON lines and Parquet files (Google Sheets
// as their CSV export) are copied into the file layer's private temporary directory and read by
// DuckDB in its isolated child (files/query.ts); a model names them like the DuckDB source's views,
// `SELECT * FROM "people.csv"`. unstructured: one row per file (unstructured.ts).
import { createHash } from "node:crypto";
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { modelSelect } from "../shared/sql";
import { ALL_EXTENSIONS, discoverFiles, queryFiles, readFiles, readFilesFingerprinted } from "../files/query";
import { googleDriveConfig, type GoogleDriveConfig } from "./config";
import { googleDriveSourceDefinition } from "./definition";
import { DriveApi } from "./drive-api";
import { DriveFolderFiles } from "./remote";
import { parseCommand, previewUnstructured, readUnstructured, unstructuredCatalog } from "./unstructured";

function scrub(config: Row, err: unknown): ConnectorError {
  const message = redact(errorMessage(err), secretValues(config, googleDriveSourceDefinition));
  return new ConnectorError(message, (err as { code?: string }).code);
}

async function scrubbed<T>(config: Row, work: (settings: GoogleDriveConfig, api: DriveApi) => Promise<T>): Promise<T> {
  try {
    const settings = googleDriveConfig(config);
    return await work(settings, new DriveApi(config, settings.timeoutMs));
  } catch (err) {
    throw scrub(config, err);
  }
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(googleDriveSourceDefinition, config, () =>
    scrubbed(config, async (settings, api) => {
      const files = await new DriveFolderFiles(api, settings.folderName).files();
      const email = (config.credentials_json as { client_email?: unknown }).client_email;
      return { ok: true, details: `Connected to Google Drive as ${String(email)}: folder "${settings.folderName}" has ${files.size} file${files.size === 1 ? "" : "s"}.` };
    }),
  );
}

async function discover(config: Row): Promise<Catalog> {
  return scrubbed(config, async (settings, api) => {
    if (settings.dataType === "unstructured") return unstructuredCatalog();
    return discoverFiles(new DriveFolderFiles(api, settings.folderName), ALL_EXTENSIONS, settings.limits);
  });
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  return scrubbed(config, (settings, api) =>
    settings.dataType === "unstructured"
      ? previewUnstructured(api, settings.folderName, sql, limit, settings.maxContentBytes)
      : queryFiles(new DriveFolderFiles(api, settings.folderName), sql, limit, settings.limits),
  );
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const settings = googleDriveConfig(config);
    const api = new DriveApi(config, settings.timeoutMs);
    if (settings.dataType === "unstructured") yield* readUnstructured(api, settings.folderName, options, settings.maxContentBytes);
    else yield* readFiles(new DriveFolderFiles(api, settings.folderName, options.signal), options, settings.limits);
  } catch (err) {
    throw scrub(config, err);
  }
}

/** Unstructured rows fingerprinted here (md5 of the seed and the row's JSON); structured ones by DuckDB. */
async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  try {
    const settings = googleDriveConfig(config);
    const api = new DriveApi(config, settings.timeoutMs);
    if (settings.dataType === "structured") {
      yield* readFilesFingerprinted(new DriveFolderFiles(api, settings.folderName, options.signal), options, settings.limits);
      return;
    }
    for await (const rows of readUnstructured(api, settings.folderName, options, settings.maxContentBytes)) {
      yield {
        length: rows.length,
        keyValues: rows.map((r) => r[options.fingerprint.primaryKey]),
        fingerprints: rows.map((r) => createHash("md5").update(options.fingerprint.seed).update(JSON.stringify(r)).digest("hex")),
        row: (i) => ({ ...rows[i] }),
      };
    }
  } catch (err) {
    throw scrub(config, err);
  }
}

export const googleDriveSource: SourceConnector = {
  definition: googleDriveSourceDefinition,
  check,
  discover,
  query,
  // Either the reference's unstructured commands or one SELECT over the folder's files.
  checkQuery: (sql) => {
    try {
      parseCommand(sql);
    } catch {
      void modelSelect(sql, "postgresql");
    }
  },
  read,
  readFingerprinted,
};
