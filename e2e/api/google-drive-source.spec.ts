// The GoogleDrive source over real HTTP against the Drive emulator (tests/emulators/google-drive.ts,
// written from Drive's published API reference): created from the reference's settings (the key's
// token_uri and our base_url pointing at the emulator), checked, discovered, previewed, modeled and
// synced into PostgreSQL; an unchanged re-run sends nothing. Also: unstructured listings, and
// semistructured refused when saved.
import { expect, test } from "@playwright/test";
import { startDriveEmulator, type DriveEmulator } from "../../tests/emulators/google-drive";
import { credentialsJson, DRIVE_CLIENT_EMAIL, DRIVE_PRIVATE_KEY, DRIVE_PUBLIC_KEY } from "../../tests/support/google-drive-fixtures";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let drive: DriveEmulator;
let folder: string;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

const csv = (rows: [number, string][]) => `id,email\n${rows.map(([id, email]) => `${id},${email}`).join("\n")}\n`;
const configuration = (dataType: string) => ({ data_type: dataType, credentials_json: credentialsJson(drive.url), folder_name: "Exports", base_url: drive.url });

test.beforeAll(async () => {
  drive = await startDriveEmulator({ clientEmail: DRIVE_CLIENT_EMAIL, publicKey: DRIVE_PUBLIC_KEY, pageCap: 2 });
  folder = drive.addFolder("Exports");
  drive.putFile(folder, "contacts.csv", csv(Array.from({ length: 250 }, (_, i) => [i + 1, `u${i + 1}@example.com`])));
  drive.putFile(folder, "notes.txt", "hello from drive", "text/plain");
  ws = await dataWorkspace("google-drive");
});

test.afterAll(async () => {
  await ws?.dispose();
  await drive?.close();
});

test("a Drive folder's CSV file syncs into PostgreSQL; an unchanged re-run sends nothing", async () => {
  const res = await ws.admin.post("/api/v1/connectors", { connector: { name: unique("drive"), connector_type: "source", connector_name: "GoogleDrive", configuration: configuration("structured") } });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  expect(body.data.attributes.configuration.credentials_json.private_key).toBe(MASK);
  expect(JSON.stringify(body)).not.toContain(DRIVE_PRIVATE_KEY.split("\n")[1]);
  const sourceId = Number(body.data.id);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain('folder \\"Exports\\" has 2 files');

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("contacts.csv");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: 'SELECT id, email FROM "contacts.csv" ORDER BY id' });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("u1@example.com");

  const table = unique("drive_contacts");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query: 'SELECT id, email FROM "contacts.csv"', query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
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
  expect(first).toMatchObject({ status: "success", total_rows: 250, successful_rows: 250 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 250 }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});

test("unstructured: one row per file with its text; semistructured is refused when saved", async () => {
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("drive-files"), connector_type: "source", connector_name: "GoogleDrive", configuration: configuration("unstructured") },
  });
  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "list_files" });
  expect(preview.status(), await preview.text()).toBe(200);
  const text = JSON.stringify(await preview.json());
  expect(text).toContain("hello from drive");
  expect(text).toContain("contacts.csv");

  const refused = await ws.admin.post("/api/v1/connectors", { connector: { name: unique("drive-semi"), connector_type: "source", connector_name: "GoogleDrive", configuration: configuration("semistructured") } });
  expect(refused.status(), await refused.text()).toBe(422);
  expect(await refused.text()).toContain("semistructured needs a document extraction model");
});
