// The file sources through the engine into PostgreSQL against real servers: AmazonS3 against s3rver
// (tests/support/s3-server.ts) and Sftp against OpenSSH (tests/support/sshd.ts, skipped as the Sftp
// connector's own tests are when it cannot run). The destination table's CHECK constraint refuses
// one row, which fails alone with PostgreSQL's reason; the unchanged re-run sends only that failed
// row again. S3's throttling answer (503 SlowDown) cannot come from s3rver, so a proxy in front of it
// (tests/support/throttling-proxy.ts) answers one request with it: the source's object download
// (with Retry-After) and the destination's upload (without one) are each waited out and repeated.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { s3Destination } from "@/lib/connectors/amazon-s3/destination";
import type { Row, Stream } from "@/lib/connectors/types";
import { loadThrough, records } from "@/tests/emulators/common";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { expectOnlyTheRefusedRowFailed, syncRefusingOne } from "@/tests/support/refused-row-sync";
import { startS3Server, S3_ACCESS_KEY, S3_SECRET_KEY, type S3TestServer } from "@/tests/support/s3-server";
import { startSshd, sshdUnavailable, type SshdServer } from "@/tests/support/sshd";
import { startThrottlingProxy, throttledThenRetried, type ThrottlingProxy } from "@/tests/support/throttling-proxy";
import { stopEngine } from "./index";

useTestDatabase();
process.env.FILES_TEMP_DIR = mkdtempSync(join(tmpdir(), "ds-file-src-fail-"));

const ROWS = 2000;
const contactsCsv = () => `id,email\n${Array.from({ length: ROWS }, (_, i) => `${i + 1},u${i + 1}@example.com`).join("\n")}\n`;
const REFUSING = `id integer PRIMARY KEY, email text, CONSTRAINT refuse_one CHECK (email <> 'u1234@example.com')`;
/** S3's throttling answer, as its error responses are documented: XML with Code SlowDown. */
const slowDown = (headers: Record<string, string> = {}) => ({
  status: 503,
  headers: { "content-type": "application/xml", ...headers },
  body: '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>',
});

let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  destination = await createScratchDatabase("ds_file_src_fail");
});
afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

describe("AmazonS3 (s3rver behind a proxy answering 503 SlowDown once)", () => {
  let s3: S3TestServer;
  let proxy: ThrottlingProxy;
  let admin: S3Client;

  beforeAll(async () => {
    s3 = await startS3Server(["data", "out"]);
    proxy = await startThrottlingProxy(s3.endpoint);
    admin = new S3Client({ region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } });
    await admin.send(new PutObjectCommand({ Bucket: "data", Key: "exports/contacts.csv", Body: contactsCsv() }));
  });
  afterEach(() => {
    proxy.log.length = 0;
  });
  afterAll(async () => {
    admin?.destroy();
    await proxy?.close();
    await s3?.stop();
  });

  it("source: the download waits out SlowDown (Retry-After: 1), one refused row fails alone, the unchanged re-run sends only it", async () => {
    proxy.throttle((method, url) => method === "GET" && url.startsWith("/data/exports/contacts.csv"), 1, slowDown({ "retry-after": "1" }));
    const config: Row = { auth_type: "user", region: "us-east-1", bucket: "data", access_id: S3_ACCESS_KEY, secret_access: S3_SECRET_KEY, path: "/exports", file_type: "csv", endpoint: proxy.url, path_style: true };
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "AmazonS3", config },
      query: "SELECT id, email FROM 's3://data/exports/contacts.csv'",
      primaryKey: "id",
      table: "s3_contacts",
      columns: REFUSING,
      mapping: { id: "id", email: "email" },
    });
    const { throttled, retry } = throttledThenRetried(proxy.log);
    expect(throttled.status).toBe(503);
    expect(retry?.status).toBe(200);
    expectOnlyTheRefusedRowFailed(seen, ROWS, "1234");
  });

  it("destination: an upload answered SlowDown without Retry-After is repeated, and every record is stored", async () => {
    proxy.throttle((method, url) => method === "PUT" && url.startsWith("/out/contacts/"), 1, slowDown());
    const config: Row = { access_key_id: S3_ACCESS_KEY, secret_access_key: S3_SECRET_KEY, region: "us-east-1", bucket_name: "out", file_path: "contacts/", file_name: "contacts", format_type: "csv", endpoint: proxy.url, path_style: true };
    const stream: Stream = { name: "contacts", url: "", json_schema: { type: "object", properties: { id: {}, email: {} } }, batch_support: true, batch_size: 10_000, request_method: "PUT" };
    const { outcomes } = await loadThrough(s3Destination, config, stream, records(300, (i) => ({ id: i, email: `u${i}@example.com` })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(300);
    const { throttled, retry } = throttledThenRetried(proxy.log);
    expect(throttled.status).toBe(503);
    expect(retry?.status).toBe(200);
    const listed = await admin.send(new ListObjectsV2Command({ Bucket: "out", Prefix: "contacts/" }));
    expect(listed.Contents).toHaveLength(1);
    const text = await (await admin.send(new GetObjectCommand({ Bucket: "out", Key: listed.Contents![0].Key! }))).Body!.transformToString();
    expect(text.trim().split("\n")).toHaveLength(301);
  });
});

const why = sshdUnavailable();
describe.skipIf(!!why)(why ? `Sftp (real OpenSSH) (skipped: ${why})` : "Sftp (real OpenSSH)", () => {
  let sshd: SshdServer;
  beforeAll(async () => {
    sshd = await startSshd();
    sshd.put("exports/contacts.csv", contactsCsv());
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it("one refused row fails alone, the unchanged re-run sends only it", async () => {
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "Sftp", config: { host: sshd.host, port: sshd.port, username: sshd.username, password: sshd.password, file_path: "exports", file_name: "contacts", format_type: "csv" } },
      query: 'SELECT id, email FROM "contacts.csv"',
      primaryKey: "id",
      table: "sftp_contacts",
      columns: REFUSING,
      mapping: { id: "id", email: "email" },
    });
    expectOnlyTheRefusedRowFailed(seen, ROWS, "1234");
  });
});
