// The BigQuery source over real HTTP, against tests/emulators/bigquery.ts (started here; its SQL runs
// on the local PostgreSQL `test` database, a schema per dataset): created from the reference's
// settings (plus the emulator's URLs), checked, discovered, previewed, a model and a sync into
// PostgreSQL, whose unchanged re-run sends nothing; the key never comes back.
import { generateKeyPairSync } from "node:crypto";
import { expect, test } from "@playwright/test";
import { startBigQueryEmulator } from "../../tests/emulators/bigquery";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, PG, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const EMAIL = "datasync@acme-analytics.iam.gserviceaccount.com";
const dataset = unique("e2e_bq");
const pgUrl = `postgres://${encodeURIComponent(PG.user)}${PG.password ? `:${encodeURIComponent(PG.password)}` : ""}@${PG.host}:${PG.port}/${PG.database}`;

let ws: DataWorkspace;
let bq: Awaited<ReturnType<typeof startBigQueryEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("bigquery");
  await sql(`CREATE SCHEMA ${dataset}`);
  await sql(`CREATE TABLE ${dataset}.contacts (id bigint PRIMARY KEY, email text NOT NULL, score numeric(10,2))`);
  await sql(`INSERT INTO ${dataset}.contacts SELECT g, 'u' || g || '@example.com', g / 4.0 FROM generate_series(1, 1500) g`);
  bq = await startBigQueryEmulator({ pgUrl, projectId: "acme-analytics", clientEmail: EMAIL, publicKey: keys.publicKey.export({ type: "spki", format: "pem" }).toString(), datasets: [dataset], maxPageRows: 200 });
});

test.afterAll(async () => {
  await bq?.close();
  await sql(`DROP SCHEMA IF EXISTS ${dataset} CASCADE`);
  await ws?.dispose();
});

test("a BigQuery table syncs into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = {
    project_id: "acme-analytics",
    dataset_id: dataset,
    credentials_json: {
      type: "service_account",
      project_id: "acme-analytics",
      private_key_id: "k1",
      private_key: privateKey,
      client_email: EMAIL,
      client_id: "112233445566778899001",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: `${bq.url}/token`,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/datasync",
      universe_domain: "googleapis.com",
    },
    api_base_url: bq.url,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("bq"), connector_type: "source", connector_name: "Bigquery", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain("PRIVATE KEY");
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain(`Connected to BigQuery project`);

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("INT64");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT id, email, score FROM contacts ORDER BY id" });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("u1@example.com");

  const table = unique("bq_contacts");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, email text, score numeric(10,2))`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query: "SELECT id, email, score FROM contacts", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", email: "email", score: "score" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 1500, successful_rows: 1500 });
  expect(await sqlRows(`SELECT count(*)::int AS n, sum(score)::text AS total FROM ${table}`)).toEqual([{ n: 1500, total: "281437.50" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});
