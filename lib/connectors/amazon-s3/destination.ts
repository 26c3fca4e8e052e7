// The AmazonS3 destination: each batch of a run becomes one CSV file in the bucket,
// `<file_path><file_name>_<YYYYMMDD>_<batch id>.csv`, with a header line from the mapping's fields.
// The batch id is a hash of the batch's records, so a retried batch overwrites its own file instead
// of adding a second one. Each record's outcome is the upload's: all of a batch's records succeed or
// fail together, with S3's sentence.
import { createHash } from "node:crypto";
import { HeadBucketCommand } from "@aws-sdk/client-s3";
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { errorMessage, safeCheck } from "../shared/errors";
import { buildCatalog } from "../shared/catalog";
import { exactJson } from "../shared/values";
import { CONTENT_TYPES, writeRowsFile } from "../files";
import { describeS3Error, isRetryableS3Error, s3Client } from "./client";
import { destinationConfig, type S3DestinationConfig } from "./config";
import { s3DestinationDefinition } from "./definition";
import { S3Files } from "./s3-files";

/** Records per file: the engine's batch for this destination. */
export const S3_BATCH_SIZE = 10_000;

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(s3DestinationDefinition, config, async () => {
    const s = destinationConfig(config);
    const client = s3Client(s);
    try {
      await client.send(new HeadBucketCommand({ Bucket: s.bucket }));
      return { ok: true, details: `Connected to s3://${s.bucket}/: files will be written under s3://${s.bucket}/${s.directory}.` };
    } catch (err) {
      return { ok: false, details: describeS3Error(err, s) };
    } finally {
      client.destroy();
    }
  });
}

async function discover(config: Row): Promise<Catalog> {
  const s = destinationConfig(config);
  return buildCatalog(
    [
      {
        name: s.fileName,
        action: "create",
        url: `s3://${s.bucket}/${s.directory}${s.fileName}`,
        json_schema: { type: "object", additionalProperties: true },
        batch_support: true,
        batch_size: S3_BATCH_SIZE,
        request_method: "PUT",
      },
    ],
    // The mapping names the CSV's columns.
    { schema_mode: "schemaless" },
  );
}

/** The same records give the same id, so a retried batch lands on its own file again. */
export function batchId(records: readonly WriteRecord[]): string {
  const hash = createHash("sha256");
  for (const r of records) hash.update(`${r.key}\u0000${r.action}\u0000${exactJson(r.payload)}\u0001`);
  return hash.digest("hex").slice(0, 16);
}

export function objectKey(s: S3DestinationConfig, records: readonly WriteRecord[], now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  return `${s.directory}${s.fileName}_${day}_${batchId(records)}.${s.format}`;
}

const declaredColumns = (options: WriteOptions): string[] =>
  Object.keys(((options.stream.json_schema ?? {}) as { properties?: object }).properties ?? {});

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  const s = destinationConfig(config);
  const outcomes: WriteOutcome[] = [];
  const rows = records.filter((r) => r.action !== "delete");
  for (const r of records)
    if (r.action === "delete")
      outcomes.push({ key: r.key, ok: false, error: "A file in S3 cannot have rows deleted: this destination only adds files." });
  if (rows.length === 0) return outcomes;

  const key = objectKey(s, rows);
  const url = `s3://${s.bucket}/${key}`;
  const client = s3Client(s);
  const file = await writeRowsFile(rows.map((r) => r.payload), s.format, {
    columns: declaredColumns(options),
  });
  try {
    const result = await new S3Files(client, s.bucket, s.directory).upload(file.path, key, CONTENT_TYPES.csv, options.signal);
    const response = { line: `stored ${url}: ${file.rows} rows, ${file.bytes} bytes, ${result.detail}` };
    for (const r of rows)
      outcomes.push({
        key: r.key,
        ok: true,
        log: { request: { line: `PUT ${url}`, body: r.payload }, response, level: "info" },
      });
  } catch (err) {
    const error = describeS3Error(err, s);
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
    const retryable = isRetryableS3Error(err) || options.signal?.aborted === true;
    for (const r of rows)
      outcomes.push({
        key: r.key,
        ok: false,
        error,
        status,
        retryable,
        log: { request: { line: `PUT ${url}`, body: r.payload }, response: { line: error }, level: "error" },
      });
  } finally {
    await file.remove().catch((e: unknown) => void errorMessage(e));
    client.destroy();
  }
  return outcomes;
}

export const s3Destination: DestinationConnector = {
  definition: s3DestinationDefinition,
  check,
  discover,
  write,
};
