// The SFTP destination: each batch of records becomes one CSV file (the file layer's writer:
// a header line, RFC 4180 quoting, values as our SQL destinations write text), optionally zipped,
// uploaded into destination_path under a hidden temporary name and renamed into place, so a partial
// file is never visible. The name is `<file_name>_<fingerprint of the batch>.csv`: a retry of the
// same batch writes the same name and replaces the file, so retries never duplicate rows.
import { createHash } from "node:crypto";
import path from "node:path";
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { exactJson } from "../shared/values";
import { writeRowsFile } from "../files";
import { sftpDestinationConfig } from "./config";
import { sftpDestinationDefinition } from "./definition";
import { SftpFiles } from "./remote";
import { remoteJoin, SFTP_UNAVAILABLE } from "./transport";
import { zipOneFile } from "./zip";

/** Records per file: the engine hands over batches of this size. */
const BATCH_SIZE = 10_000;

function scrubbed(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretValues(config, sftpDestinationDefinition)), (err as { code?: string }).code);
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(sftpDestinationDefinition, config, async () => {
    const settings = sftpDestinationConfig(config);
    const files = new SftpFiles(settings.target, settings.destinationPath);
    try {
      const session = await files.open();
      await session.probeWritable(settings.destinationPath);
      const pin = settings.target.hostKeyFingerprint ? "host key as pinned" : `host key ${session.serverFingerprint}; set host_key_fingerprint to it to pin it`;
      return { ok: true, details: `Connected to ${settings.target.host}:${settings.target.port} as ${settings.target.username} (${pin}); "${settings.destinationPath || "."}" takes new files.` };
    } finally {
      await files.close();
    }
  });
}

async function discover(): Promise<Catalog> {
  return buildCatalog(
    [{ name: "sftp", action: "create", url: "sftp", json_schema: {}, batch_support: true, batch_size: BATCH_SIZE, request_method: "POST" }],
    { schema_mode: "schemaless", request_rate_limit: 600, request_rate_limit_unit: "minute", request_rate_concurrency: 2 },
  );
}

/** The same records, the same fingerprint: a retried batch lands on the same file name. */
function batchFingerprint(records: readonly WriteRecord[]): string {
  const hash = createHash("sha256");
  for (const r of records) hash.update(r.key).update("\0").update(exactJson(r.payload)).update("\n");
  return hash.digest("hex").slice(0, 16);
}

function declaredColumns(options: WriteOptions): string[] {
  const properties = (options.stream.json_schema as { properties?: Record<string, unknown> }).properties;
  return properties ? Object.keys(properties) : [];
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = [];
  const rows = records.filter((r) => {
    if (r.action !== "delete") return true;
    outcomes.push({ key: r.key, ok: false, error: "The SFTP destination writes files: it cannot delete a row from a file already written.", retryable: false });
    return false;
  });
  if (rows.length === 0) return outcomes;

  let settings;
  try {
    settings = sftpDestinationConfig(config);
  } catch (err) {
    return [...outcomes, ...rows.map((r) => ({ key: r.key, ok: false, error: scrubbed(config, err).message, retryable: false }))];
  }
  const base = `${settings.fileName}_${batchFingerprint(rows)}`;
  const zipped = settings.compression === "zip";
  const remoteName = `${base}.${zipped ? "zip" : "csv"}`;
  const key = remoteJoin(settings.destinationPath, remoteName);
  const shown = `sftp://${settings.target.host}/${key.replace(/^\/+/, "")}`;
  const files = new SftpFiles(settings.target, settings.destinationPath, options.signal);
  let csv: Awaited<ReturnType<typeof writeRowsFile>> | undefined;
  try {
    csv = await writeRowsFile(rows.map((r) => r.payload), "csv", { name: `${base}.csv`, columns: declaredColumns(options) });
    let local = csv.path;
    if (zipped) {
      local = path.join(path.dirname(csv.path), remoteName);
      await zipOneFile(csv.path, `${base}.csv`, local);
    }
    const uploaded = await files.upload(local, key);
    for (const [line, r] of rows.entries()) {
      outcomes.push({
        key: r.key,
        ok: true,
        log: {
          request: { line: `PUT ${shown} (row ${line + 1} of ${rows.length})`, body: r.payload },
          response: { line: uploaded.detail },
          level: "info",
        },
      });
    }
  } catch (err) {
    const failure = scrubbed(config, err);
    const retryable = failure.code === SFTP_UNAVAILABLE || failure.code === "canceled";
    for (const r of rows) outcomes.push({ key: r.key, ok: false, error: `${shown} was not written: ${failure.message}`, retryable, ...(retryable ? { status: 0 } : {}) });
  } finally {
    await csv?.remove();
    await files.close();
  }
  return outcomes;
}

export const sftpDestination: DestinationConnector = {
  definition: sftpDestinationDefinition,
  check,
  discover,
  write,
};
