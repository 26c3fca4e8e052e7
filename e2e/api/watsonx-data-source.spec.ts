// The WatsonxData source over real HTTP, against the watsonx.data emulator (tests/emulators/
// watsonx-data.ts: IBM's IAM token API and the v2 query API, the SQL run on the local PostgreSQL):
// created from the reference's settings plus our emulator addresses, checked, discovered,
// previewed, synced into PostgreSQL; an unchanged re-run sends nothing and an incremental run sends
// only rows at or after the saved cursor. The API key never comes back.
import { expect, test } from "@playwright/test";
import { startWatsonxDataEmulator } from "../../tests/emulators/watsonx-data";
import { trigger, waitForRun } from "../support/run-scenarios";
import {
  dataWorkspace,
  MASK,
  PG,
  pgConfiguration,
  sql,
  sqlRows,
  unique,
  type DataWorkspace,
} from "../support/data";

const API_KEY = "wxd-e2e-Secret-5d8a1f";
const ENGINE = "presto-e2e";
const CRN = "crn:v1:bluemix:public:lakehouse:us-south:a/e2e:inst::";
const schema = unique("wxd_src");
let ws: DataWorkspace;
let emulator: Awaited<ReturnType<typeof startWatsonxDataEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("watsonx");
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(
    `CREATE TABLE ${schema}.customers (id bigint NOT NULL, email varchar(80) NOT NULL, updated_at timestamp NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${schema}.customers SELECT g, 'w' || g || '@example.com', timestamp '2024-03-01' + g * interval '1 minute' FROM generate_series(1, 250) g`,
  );
  emulator = await startWatsonxDataEmulator({
    apiKey: API_KEY,
    engineId: ENGINE,
    instanceCrn: CRN,
    pg: {
      host: PG.host,
      port: PG.port,
      user: PG.user,
      password: PG.password || undefined,
      database: PG.database,
    },
  });
});

test.afterAll(async () => {
  await emulator?.close();
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await ws?.dispose();
});

test("a watsonx.data source syncs into PostgreSQL; unchanged re-runs send nothing, incremental runs only what is new", async () => {
  const configuration = {
    api_key: API_KEY,
    region: "us-south",
    engine: "presto",
    engine_id: ENGINE,
    auth_instance_id: CRN,
    database: PG.database,
    schema,
    config: { timeout: "30" },
    api_url: emulator.apiUrl,
    iam_url: emulator.iamUrl,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: {
      name: unique("watsonx"),
      connector_type: "source",
      connector_name: "WatsonxData",
      configuration,
    },
  });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).toContain(MASK);
  expect(shown).not.toContain(API_KEY);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  const checkText = await check.text();
  expect(check.status(), checkText).toBe(200);
  expect(JSON.parse(checkText).details).toMatch(/Connected to watsonx\.data engine "presto-e2e".*1 tables/);

  const wrongKey = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    type: "source",
    name: "WatsonxData",
    connection_spec: { ...configuration, api_key: "wrong-e2e-key" },
  });
  expect(wrongKey.status()).toBe(200);
  const wrongText = await wrongKey.text();
  expect(wrongText).toMatch(/IBM Cloud IAM refused the API key/);
  expect(wrongText).not.toContain("wrong-e2e-key");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("customers");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, {
    query: "SELECT id, email FROM customers ORDER BY id",
  });
  const previewText = await preview.text();
  expect(preview.status(), previewText).toBe(200);
  expect(previewText).toContain("w1@example.com");
  expect(previewText).not.toContain(API_KEY);

  const table = unique("wxd_customers");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, email text, updated_at timestamp)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: {
      name: unique("pg"),
      connector_type: "destination",
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(
    200,
  );
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: {
      name: unique("customers"),
      query: "SELECT id, email, updated_at FROM customers",
      query_type: "raw_sql",
      primary_key: "id",
      connector_id: sourceId,
    },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      cursor_field: "updated_at",
      stream_name: table,
      configuration: { id: "id", email: "email", updated_at: "updated_at" },
    },
  });

  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 250, successful_rows: 250 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 250 }]);
  expect(await sqlRows(`SELECT email, updated_at::text AS at FROM ${table} WHERE id = 7`)).toEqual([
    { email: "w7@example.com", at: "2024-03-01 00:07:00" },
  ]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  await sql(
    `UPDATE ${schema}.customers SET email = 'changed@example.com', updated_at = timestamp '2024-03-02 12:00' WHERE id = 5`,
  );
  await sql(`INSERT INTO ${schema}.customers VALUES (251, 'new@example.com', timestamp '2024-03-02 12:01')`);
  const incremental = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(incremental).toMatchObject({ status: "success", total_rows: 2, successful_rows: 2 });
  expect(await sqlRows(`SELECT id::int AS id, email FROM ${table} WHERE id IN (5, 251) ORDER BY id`)).toEqual(
    [
      { id: 5, email: "changed@example.com" },
      { id: 251, email: "new@example.com" },
    ],
  );
  // The incremental read compared the cursor in the column's own type.
  expect(emulator.state.queries.some((q) => q.includes("CAST('2024-03-01 04:10:00.000' AS timestamp)"))).toBe(
    true,
  );
  for (const request of emulator.requests.filter((r) => r.url.startsWith("/lakehouse/")))
    expect(request.headers.authinstanceid).toBe(CRN);
});
