// The Odoo source over real HTTP, against the JSON-RPC emulator (tests/emulators/odoo.ts, started
// here): created from the reference's settings (the emulator's URL), checked, discovered, previewed,
// a model and a sync into PostgreSQL, whose unchanged re-run sends nothing and whose run after one
// record changed sends that record; the password never comes back.
import { expect, test } from "@playwright/test";
import { odooNow, startOdooEmulator } from "../../tests/emulators/odoo";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const PASSWORD = "odoo-e2e-api-key-8d1f0c";
let ws: DataWorkspace;
let odoo: Awaited<ReturnType<typeof startOdooEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("odoo");
  odoo = await startOdooEmulator({ database: "acme", login: "datasync@acme.example", password: PASSWORD });
  odoo.seed(
    "res.partner",
    Array.from({ length: 1200 }, (_, k) => ({ id: k + 1, name: `Partner ${k + 1}`, email: k % 5 === 0 ? false : `p${k + 1}@example.com`, credit_limit: (k + 1) / 4, write_date: "2026-01-01 09:00:00" })),
  );
});

test.afterAll(async () => {
  await odoo?.close();
  await ws?.dispose();
});

test("an Odoo model syncs into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = { url: odoo.url, database: "acme", username: "datasync@acme.example", password: PASSWORD };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("odoo"), connector_type: "source", connector_name: "Odoo", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain(PASSWORD);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain('Connected to Odoo 17.0, database \\"acme\\"');

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  const discoveredText = await discovered.text();
  expect(discovered.status(), discoveredText).toBe(200);
  expect(discoveredText).toContain("res.partner");
  expect(discoveredText).not.toContain("base.language.install");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT id, name, email FROM res.partner ORDER BY id LIMIT 5" });
  const previewText = await preview.text();
  expect(preview.status(), previewText).toBe(200);
  expect(previewText).toContain("Partner 1");
  expect(previewText).not.toContain(PASSWORD);

  const table = unique("odoo_partners");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, name text, email text, credit_limit numeric(12,2))`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("partners"), query: "SELECT id, name, email, credit_limit FROM res.partner", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", name: "name", email: "email", credit_limit: "credit_limit" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 1200, successful_rows: 1200 });
  expect(await sqlRows(`SELECT count(*)::int AS n, count(email)::int AS emails, sum(credit_limit)::text AS total FROM ${table}`)).toEqual([{ n: 1200, emails: 960, total: "180150.00" }]);
  // Read page by page (keyset on id), never the whole model in one call.
  const pages = odoo.calls.filter((c) => c.modelMethod === "search_read" && c.model === "res.partner");
  expect(pages.length).toBeGreaterThan(1);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  const partner = odoo.tables.get("res.partner")!.find((r) => r.id === 7)!;
  Object.assign(partner, { name: "Renamed Partner", write_date: odooNow() });
  const changed = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(await sqlRows(`SELECT name FROM ${table} WHERE id = 7`)).toEqual([{ name: "Renamed Partner" }]);
});
