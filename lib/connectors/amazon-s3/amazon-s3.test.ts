// The AmazonS3 source and destination against a real S3-protocol server (s3rver, started here on a
// loopback port): check, discovery, previews, streamed and incremental reads, cancel, the files a
// query may not reach, bad credentials and buckets, secrets kept out of every sentence, temporary
// copies removed, and files written by the destination read back from the server.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { DuckDBInstance } from "@duckdb/node-api";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, S3_ACCESS_KEY, S3_SECRET_KEY, type S3TestServer } from "@/tests/support/s3-server";
import type { Row, Stream, WriteRecord } from "../types";
import { TEMP_PREFIX } from "../files";
import { s3Source } from "./source";
import { s3Destination } from "./destination";
import { validateConfiguration, getDefinition } from "../registry";

let server: S3TestServer;
let temp: string;
let admin: S3Client;
const WRONG_SECRET = "wrong-secret-7f3a9c";

const sourceConfig = (extra: Row = {}): Row => ({
  auth_type: "user",
  region: "us-east-1",
  bucket: "data",
  access_id: S3_ACCESS_KEY,
  secret_access: S3_SECRET_KEY,
  path: "/exports",
  endpoint: server.endpoint,
  path_style: true,
  ...extra,
});

const destinationConfig = (extra: Row = {}): Row => ({
  access_key_id: S3_ACCESS_KEY,
  secret_access_key: S3_SECRET_KEY,
  region: "us-east-1",
  bucket_name: "out",
  file_path: "contacts/",
  file_name: "contacts",
  format_type: "csv",
  endpoint: server.endpoint,
  path_style: true,
  ...extra,
});

const put = (Key: string, Body: string | Buffer) => admin.send(new PutObjectCommand({ Bucket: "data", Key, Body }));
const leftovers = async () => (await readdir(temp)).filter((n) => n.startsWith(TEMP_PREFIX));

async function objectText(bucket: string, key: string): Promise<string> {
  const o = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return o.Body!.transformToString();
}

async function keys(bucket: string, prefix = ""): Promise<string[]> {
  const page = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  temp = await mkdtemp(path.join(tmpdir(), "ds-s3-temp-"));
  process.env.FILES_TEMP_DIR = temp;
  server = await startS3Server(["data"]);
  admin = new S3Client({
    region: "us-east-1",
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
  });
  await admin.send(new CreateBucketCommand({ Bucket: "out" }));
  await put("exports/people.csv", "id,name,updated_at\n1,ann,2024-01-01 10:00:00\n2,bob,2024-02-01 10:00:00\n3,cy,2024-03-01 10:00:00\n");
  await put("exports/events.jsonl", '{"id":10,"kind":"open","amount":12345678901234567890}\n{"id":11,"kind":"close","amount":1.5}\n');
  await put("exports/2024/a.csv", "id,v\n1,x\n");
  await put("exports/2024/b.csv", "id,v\n2,y\n");
  await put("other/elsewhere.csv", "id\n99\n");
  const lines = ["id,email,score"];
  for (let i = 1; i <= 50_000; i++) lines.push(`${i},user${i}@example.com,${i % 100}`);
  await put("exports/big/contacts.csv", `${lines.join("\n")}\n`);
  const dir = await mkdtemp(path.join(tmpdir(), "ds-s3-parquet-"));
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  await conn.run(
    `COPY (SELECT i AS id, 'item ' || i AS label, TIMESTAMP '2024-01-01' + INTERVAL (i) HOUR AS seen_at FROM range(1, 101) t(i)) TO '${dir}/items.parquet' (FORMAT parquet)`,
  );
  conn.closeSync();
  instance.closeSync();
  await put("exports/items.parquet", await readFile(path.join(dir, "items.parquet")));
  await rm(dir, { recursive: true, force: true });
}, 120_000);

afterAll(async () => {
  admin?.destroy();
  await server?.stop();
  delete process.env.FILES_TEMP_DIR;
  delete process.env.OUTBOUND_ALLOW_PRIVATE;
  await rm(temp, { recursive: true, force: true });
});

describe("settings", () => {
  it("accepts the reference's settings unchanged, role auth too", () => {
    const source = getDefinition("AmazonS3", "source")!;
    expect(validateConfiguration(source, sourceConfig({ file_type: "csv", data_type: "structured" }))).toEqual([]);
    // Role auth is the operator's choice (S3_ROLE_AUTH, off by default): its settings are the reference's, refused while off.
    const role = { auth_type: "role", region: "us-east-1", bucket: "b", arn: "arn:aws:iam::1:role/r", external_id: "x" };
    expect(validateConfiguration(source, role)).toEqual([{ path: "auth_type", message: expect.stringContaining("S3_ROLE_AUTH=on") }]);
    process.env.S3_ROLE_AUTH = "on";
    try {
      expect(validateConfiguration(source, role)).toEqual([]);
    } finally {
      delete process.env.S3_ROLE_AUTH;
    }
    expect(validateConfiguration(source, { auth_type: "user", region: "us-east-1", bucket: "b" }).map((e) => e.path).sort()).toEqual([
      "access_id",
      "secret_access",
    ]);
    const destination = getDefinition("AmazonS3", "destination")!;
    expect(destination.category).toBe("File Storage");
    expect(source).toMatchObject({ category: "Data Lake", subCategory: "Relational Database" });
    expect(validateConfiguration(destination, destinationConfig())).toEqual([]);
  });
});

describe("source", () => {
  it("checks the bucket, and says what is wrong with credentials, buckets and targets", async () => {
    expect(await s3Source.check(sourceConfig())).toEqual({ ok: true, details: expect.stringMatching(/Connected to s3:\/\/data\/exports\/: 6 data files/) });
    const badKey = await s3Source.check(sourceConfig({ access_id: "NOPE" }));
    expect(badKey).toEqual({ ok: false, details: expect.stringMatching(/does not know this access key id/) });
    // s3rver verifies signatures of some requests only (not ListObjects): an unknown key with the secret.
    const badSecret = await s3Source.check(sourceConfig({ access_id: "NOPE", secret_access: WRONG_SECRET }));
    expect(badSecret.ok).toBe(false);
    expect(badSecret.details).not.toContain(WRONG_SECRET);
    expect(await s3Source.check(sourceConfig({ bucket: "missing" }))).toEqual({
      ok: false,
      details: expect.stringMatching(/The bucket "missing" does not exist/),
    });
    expect((await s3Source.check(sourceConfig({ auth_type: "role", arn: "a", external_id: "e" }))).details).toMatch(/auth_type role is off on this server/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    try {
      expect((await s3Source.check(sourceConfig())).details).toMatch(/private, loopback or link-local/);
    } finally {
      process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    }
  });

  it("discovers each file under the path as a stream with DuckDB's column types", async () => {
    const catalog = await s3Source.discover(sourceConfig({ file_type: "parquet" }));
    expect(catalog.streams.map((s) => s.name)).toEqual(["items.parquet"]);
    expect(catalog.streams[0].json_schema.properties).toMatchObject({
      id: { type: expect.arrayContaining(["integer"]) },
      label: { type: expect.arrayContaining(["string"]) },
    });
    const all = await s3Source.discover(sourceConfig());
    expect(all.streams.map((s) => s.name).sort()).toEqual([
      "2024/a.csv",
      "2024/b.csv",
      "big/contacts.csv",
      "events.jsonl",
      "items.parquet",
      "people.csv",
    ]);
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it("previews queries naming files by URL, relative name, glob and view", async () => {
    const byUrl = await s3Source.query!(sourceConfig(), "SELECT id, name FROM 's3://data/exports/people.csv' ORDER BY id", 2);
    expect(byUrl.rows).toEqual([{ id: 1, name: "ann" }, { id: 2, name: "bob" }]);
    const jsonl = await s3Source.query!(sourceConfig(), `SELECT * FROM "events.jsonl" ORDER BY id`, 10);
    expect(jsonl.rows).toEqual([
      { id: 10, kind: "open", amount: 12345678901234567890 },
      { id: 11, kind: "close", amount: 1.5 },
    ]);
    const glob = await s3Source.query!(sourceConfig(), "SELECT * FROM '2024/*.csv' ORDER BY id", 10);
    expect(glob.rows).toEqual([{ id: 1, v: "x" }, { id: 2, v: "y" }]);
    const parquet = await s3Source.query!(sourceConfig(), "SELECT id, seen_at FROM 'items.parquet' WHERE id = 2", 10);
    expect(parquet.rows).toEqual([{ id: 2, seen_at: "2024-01-01T02:00:00.000Z" }]);
    const outside = await s3Source.query!(sourceConfig(), "SELECT * FROM 's3://data/other/elsewhere.csv'", 10);
    expect(outside.rows).toEqual([{ id: 99 }]);
    await expect(s3Source.query!(sourceConfig(), "SELECT * FROM 's3://data/exports/none*.csv'", 10)).rejects.toThrow(/No file matches/);
    await expect(s3Source.query!(sourceConfig(), "SELECT * FROM '/etc/passwd'", 10)).rejects.toThrow(/does not exist|disabled|not allowed/);
    await expect(s3Source.query!(sourceConfig(), "SELECT * FROM read_csv('/etc/passwd')", 10)).rejects.toThrow(/disabled|not allowed|a model reads only/);
    await expect(s3Source.query!(sourceConfig(), "SELECT * FROM 's3://data/../etc/passwd'", 10)).rejects.toThrow(/not a file name/);
    expect(await leftovers()).toEqual([]);
  }, 180_000);

  it("reads 50,000 rows in batches, holding one batch at a time", async () => {
    const before = process.memoryUsage().heapUsed;
    let total = 0;
    let batches = 0;
    let peak = 0;
    for await (const rows of s3Source.read(sourceConfig(), { query: "SELECT * FROM 'big/contacts.csv'", batchSize: 2000 })) {
      expect(rows.length).toBeLessThanOrEqual(2000);
      total += rows.length;
      batches++;
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect(total).toBe(50_000);
    expect(batches).toBe(25);
    expect(peak).toBeLessThan(200 * 1024 * 1024);
    expect(await leftovers()).toEqual([]);
  }, 180_000);

  it("reads incrementally from a cursor, and stops when canceled", async () => {
    const rows: Row[] = [];
    for await (const batch of s3Source.read(sourceConfig(), {
      query: "SELECT id, name, updated_at FROM 'people.csv'",
      batchSize: 10,
      cursorField: "updated_at",
      cursorValue: "2024-02-01T10:00:00.000Z",
    }))
      rows.push(...batch);
    expect(rows.map((r) => r.id)).toEqual([2, 3]);

    const controller = new AbortController();
    const read = s3Source.read(sourceConfig(), { query: "SELECT * FROM 'big/contacts.csv'", batchSize: 100, signal: controller.signal });
    const iterator = read[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toThrow(/stopped/);
    expect(await leftovers()).toEqual([]);
  }, 180_000);

  it("fails a read with a sentence that never carries the secret", async () => {
    // s3rver checks the signatures of some requests only; an unknown key is refused by all.
    const read = s3Source.read(sourceConfig({ access_id: "NOPE", secret_access: WRONG_SECRET }), {
      query: "SELECT * FROM 'people.csv'",
      batchSize: 10,
    });
    const error = await read[Symbol.asyncIterator]().next().catch((e: Error) => e);
    expect(String((error as Error).message)).toMatch(/does not know this access key id/);
    expect(String((error as Error).message)).not.toContain(WRONG_SECRET);
  });
});

describe("destination", () => {
  const stream = (properties: Record<string, unknown> = {}): Stream => ({
    name: "contacts",
    url: "",
    json_schema: { type: "object", properties },
    batch_support: true,
    batch_size: 10_000,
    request_method: "PUT",
  });
  const record = (id: number, extra: Row = {}): WriteRecord => ({
    key: String(id),
    action: "upsert",
    payload: { id, email: `u${id}@example.com`, ...extra },
  });

  it("checks the bucket with a sentence for a bad secret or bucket", async () => {
    expect(await s3Destination.check(destinationConfig())).toMatchObject({ ok: true });
    const bad = await s3Destination.check(destinationConfig({ access_key_id: "NOPE", secret_access_key: WRONG_SECRET }));
    expect(bad).toEqual({ ok: false, details: expect.stringMatching(/refused the request to the bucket "out" \(HTTP 403\): check the access key/) });
    expect(bad.details).not.toContain(WRONG_SECRET);
    expect(await s3Destination.check(destinationConfig({ bucket_name: "missing" }))).toEqual({
      ok: false,
      details: expect.stringMatching(/The bucket "missing" does not exist/),
    });
  });

  it("discovers one stream the mapping names the columns of", async () => {
    const catalog = await s3Destination.discover(destinationConfig());
    expect(catalog).toMatchObject({ schema_mode: "schemaless", streams: [{ name: "contacts", action: "create" }] });
  });

  it("writes each batch as one CSV file, the same batch to the same file, with per-record outcomes", async () => {
    const records = [record(1, { note: 'says "hi", twice' }), record(2), { ...record(3), action: "delete" as const }];
    const outcomes = await s3Destination.write(destinationConfig(), records, { stream: stream({ id: {}, email: {}, note: {} }), batch: true });
    expect(outcomes.filter((o) => o.ok).map((o) => o.key).sort()).toEqual(["1", "2"]);
    expect(outcomes.find((o) => o.key === "3")).toMatchObject({ ok: false, error: expect.stringMatching(/cannot have rows deleted/) });
    const written = await keys("out", "contacts/");
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^contacts\/contacts_\d{8}_[0-9a-f]{16}\.csv$/);
    expect(await objectText("out", written[0])).toBe('id,email,note\n1,u1@example.com,"says ""hi"", twice"\n2,u2@example.com,\n');
    expect(outcomes.find((o) => o.key === "1")!.log?.response.line).toMatch(/stored s3:\/\/out\/contacts\/contacts_.*2 rows.*ETag/);
    // A retry of the same batch lands on the same file.
    await s3Destination.write(destinationConfig(), records, { stream: stream({ id: {}, email: {}, note: {} }), batch: true });
    expect(await keys("out", "contacts/")).toEqual(written);
    expect(await leftovers()).toEqual([]);
  });

  it("uploads a large batch in parts", async () => {
    const records = Array.from({ length: 12_000 }, (_, i) => record(i, { pad: "x".repeat(500) }));
    const outcomes = await s3Destination.write(destinationConfig({ file_path: "large" }), records, { stream: stream(), batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const [key] = await keys("out", "large/");
    const text = await objectText("out", key);
    expect(text.split("\n")).toHaveLength(12_002);
  }, 120_000);

  it("fails the batch's records with S3's sentence when the upload fails, never with the secret", async () => {
    const outcomes = await s3Destination.write(destinationConfig({ bucket_name: "missing" }), [record(1), record(2)], { stream: stream(), batch: true });
    expect(outcomes).toHaveLength(2);
    for (const o of outcomes) expect(o).toMatchObject({ ok: false, error: expect.stringMatching(/The bucket "missing" does not exist/), retryable: false });
    const bad = await s3Destination.write(destinationConfig({ access_key_id: "NOPE", secret_access_key: WRONG_SECRET }), [record(1)], {
      stream: stream(),
      batch: true,
    });
    expect(bad[0].ok).toBe(false);
    expect(JSON.stringify(bad)).not.toContain(WRONG_SECRET);
    expect(await leftovers()).toEqual([]);
  });
});
