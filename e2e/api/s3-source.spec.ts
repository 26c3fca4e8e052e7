// The AmazonS3 source over real HTTP against a real S3-protocol server (s3rver, started here on a
// loopback port): created from the reference's own settings with the endpoint pointed at it, checked,
// discovered, previewed, and synced into PostgreSQL; an unchanged re-run sends nothing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { expect, test } from "@playwright/test";
import { startS3Server, S3_ACCESS_KEY, S3_SECRET_KEY, type S3TestServer } from "../../tests/support/s3-server";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const reference = JSON.parse(
  readFileSync(path.resolve("tests/fixtures/reference-settings/source-AmazonS3.json"), "utf8"),
) as { configuration: Record<string, unknown> };

let ws: DataWorkspace;
let s3: S3TestServer;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("s3-source");
  s3 = await startS3Server(["e2e-source"]);
  const client = new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
  });
  const lines = ["id,email", ...Array.from({ length: 500 }, (_, i) => `${i + 1},u${i + 1}@example.com`)];
  await client.send(new PutObjectCommand({ Bucket: "e2e-source", Key: "exports/contacts.csv", Body: `${lines.join("\n")}\n` }));
  client.destroy();
});

test.afterAll(async () => {
  await s3?.stop();
  await ws?.dispose();
});

test("S3 files sync into PostgreSQL from the reference's settings; an unchanged re-run sends nothing", async () => {
  const configuration = {
    ...reference.configuration,
    bucket: "e2e-source",
    region: "us-east-1",
    access_id: S3_ACCESS_KEY,
    secret_access: S3_SECRET_KEY,
    path: "/exports",
    file_type: "csv",
    endpoint: s3.endpoint,
    path_style: true,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("s3"), connector_type: "source", connector_name: "AmazonS3", configuration },
  });
  const shown = await ws.admin.get(`/api/v1/connectors/${sourceId}`);
  expect(JSON.stringify(await shown.json())).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toMatch(/1 csv file/);

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("contacts.csv");

  const query = "SELECT id, email FROM 's3://e2e-source/exports/contacts.csv'";
  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: `${query} ORDER BY id` });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("u1@example.com");

  const table = unique("s3_contacts");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: table,
      configuration: { id: "id", email: "email" },
    },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 500, successful_rows: 500 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 500 }]);
  expect(await sqlRows(`SELECT email FROM ${table} WHERE id = 42`)).toEqual([{ email: "u42@example.com" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});
