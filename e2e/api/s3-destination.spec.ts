// The AmazonS3 destination over real HTTP against a real S3-protocol server (s3rver, started here on
// a loopback port): a PostgreSQL model synced into a CSV file in the bucket, each record's outcome
// recorded, the file's content read back; an unchanged re-run writes nothing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { expect, test } from "@playwright/test";
import { startS3Server, S3_ACCESS_KEY, S3_SECRET_KEY, type S3TestServer } from "../../tests/support/s3-server";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

const reference = JSON.parse(
  readFileSync(path.resolve("tests/fixtures/reference-settings/destination-AmazonS3.json"), "utf8"),
) as { configuration: Record<string, unknown> };

const ROWS = 50;
let ws: DataWorkspace;
let s3: S3TestServer;
let client: S3Client;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

async function objects(prefix: string): Promise<string[]> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: "e2e-out", Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

test.beforeAll(async () => {
  ws = await dataWorkspace("s3-destination");
  s3 = await startS3Server(["e2e-out"]);
  client = new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
  });
});

test.afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  await ws?.dispose();
});

test("a PostgreSQL model syncs into a CSV file in S3, with an outcome per record", async () => {
  const table = unique("s3_people");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${table} SELECT i, 'p' || i || '@example.com' FROM generate_series(1, ${ROWS}) i`);
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("people"), query: `SELECT id, email FROM ${table}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const folder = `${unique("run")}/`;
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: {
      name: unique("s3"),
      connector_type: "destination",
      connector_name: "AmazonS3",
      configuration: {
        ...reference.configuration,
        access_key_id: S3_ACCESS_KEY,
        secret_access_key: S3_SECRET_KEY,
        region: "us-east-1",
        bucket_name: "e2e-out",
        file_path: folder,
        file_name: "people",
        endpoint: s3.endpoint,
        path_style: true,
      },
    },
  });
  const check = await ws.admin.post(`/api/v1/connectors/${destinationId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toMatch(/succeeded|Connected/);
  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);

  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: "people",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "email", to: "email", mapping_type: "standard" },
      ],
    },
  });
  const runId = await trigger(ws.admin, syncId);
  const run = await waitForRun(ws.admin, syncId, runId);
  expect(run).toMatchObject({ status: "success", successful_rows: ROWS, failed_rows: 0 });

  const records = await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=100`);
  expect(records.status(), await records.text()).toBe(200);
  const data = (await records.json()).data as { attributes: { status: string } }[];
  expect(data).toHaveLength(ROWS);
  expect(data.every((r) => r.attributes.status === "success")).toBe(true);

  const keys = await objects(folder);
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatch(new RegExp(`^${folder}people_\\d{8}_[0-9a-f]{16}\\.csv$`));
  const body = await (await client.send(new GetObjectCommand({ Bucket: "e2e-out", Key: keys[0] }))).Body!.transformToString();
  const lines = body.trim().split("\n");
  expect(lines[0]).toBe("id,email");
  expect(lines.slice(1).sort()).toEqual(Array.from({ length: ROWS }, (_, i) => `${i + 1},p${i + 1}@example.com`).sort());

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
  expect(await objects(folder)).toEqual(keys);
});
