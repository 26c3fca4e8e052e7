// Write modes in the console (docs/write-modes.md): the wizard's Mode step offers the destination's
// modes with what each does (Slack: insert only) and a sync created with one reaches the API; the
// settings view changes it; a run shows its mode and each skipped record says why it was skipped.
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";

const schema = unique("modes_e2e");
const destinationName = unique("modes-destination");
const slackName = unique("modes-slack");
let context: APIRequestContext;
let api: Api;
let modelId: number;
const created: string[] = [];

async function post(path: string, data: unknown, status = 201): Promise<{ data: { id: string } }> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // Key 1 is in the destination already: insert mode skips it and creates 2.
  await sql(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com'), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.contacts VALUES (1, 'kept@example.com');
  `);
  context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  api = new Api({ token: await loginAs(context, ADMIN.email, ADMIN.password) });
  const connector = (type: string, name: string, connector_name = "Postgresql", configuration: Record<string, unknown> = pgConfiguration({ schema })) => ({
    connector: { name, connector_type: type, connector_name, configuration },
  });
  const sourceId = Number((await post("/api/v1/connectors", connector("source", unique("modes-source")))).data.id);
  created.unshift(`/api/v1/connectors/${sourceId}`);
  const destinationId = Number((await post("/api/v1/connectors", connector("destination", destinationName))).data.id);
  created.unshift(`/api/v1/connectors/${destinationId}`);
  const slackId = Number(
    (await post("/api/v1/connectors", connector("destination", slackName, "Slack", { auth_type: "webhook", webhook_url: "https://hooks.slack.com/services/T0/B0/x" }))).data.id,
  );
  created.unshift(`/api/v1/connectors/${slackId}`);
  await post("/api/v1/catalogs", { connector_id: slackId, catalog: { streams: [{ name: "messages" }], schema_mode: "schemaless" } }, 200);
  const model = await post("/api/v1/models", {
    model: { name: unique("modes-model"), query: `SELECT * FROM ${schema}.people`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  modelId = Number(model.data.id);
  created.unshift(`/api/v1/models/${modelId}`);
});

test.afterAll(async () => {
  for (const path of created) await api.delete(path);
  await context.dispose();
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

async function syncAttributes(syncId: string) {
  const res = await api.get(`/api/v1/syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes as { write_mode: string };
}

test("the wizard offers only the destination's modes, creates an insert-only sync, and settings change its mode", async ({ page, consoleErrors }) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/syncs/new?model=${modelId}`));
  await page.getByRole("button", { name: "Continue" }).click();

  // Slack takes insert only: the Mode step offers nothing else.
  await page.getByRole("radio", { name: new RegExp(slackName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("messages");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  const writeModes = page.getByRole("group", { name: "Write mode" });
  await expect(writeModes.getByRole("radio")).toHaveCount(1);
  await expect(writeModes.getByRole("radio", { name: /Insert only/ })).toBeChecked();
  await expect(writeModes).toContainText("keys already there are skipped");

  // Back to the destination step: a PostgreSQL destination offers all four.
  await page.getByRole("button", { name: "Go to step 2: Destination" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("contacts");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Mapping 1 destination field", { exact: true })).not.toHaveValue("", { timeout: 60_000 });
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(writeModes.getByRole("radio")).toHaveCount(4);
  await writeModes.getByRole("radio", { name: /Insert only/ }).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(unique("modes-sync"));
  await page.getByRole("button", { name: "Create sync" }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  const syncId = new URL(page.url()).pathname.split("/").pop()!;
  created.unshift(`/api/v1/syncs/${syncId}`);
  expect((await syncAttributes(syncId)).write_mode).toBe("insert");
  await expect(page.locator("dl div").filter({ hasText: "Write mode" })).toContainText("Insert only");

  // A run: key 1 was there, so it is skipped with the reason; key 2 is created.
  const run = await post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200);
  const runId = String(run.data.id);
  await expect
    .poll(async () => (await (await api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data.attributes.status, { timeout: 60_000 })
    .toBe("success");
  await page.goto(url(`/syncs/${syncId}/runs/${runId}`));
  await expect(page.getByText(/write mode insert only/)).toBeVisible();
  await page.getByLabel("Status").selectOption("skipped");
  const records = page.getByRole("table", { name: "Records" });
  await expect(records.getByRole("button", { name: /details of record/ })).toHaveCount(1);
  await expect(records).toContainText("insert mode: key 1 is already in the destination, so it was not updated.");
  await page.getByRole("button", { name: "Show details of record 1" }).click();
  await expect(page.getByTestId("record-details")).toContainText("Why it was skipped");

  // Settings: the Mode section shows the saved mode and changes it.
  await page.goto(url(`/syncs/${syncId}/settings`));
  const mode = page.getByRole("region", { name: "Mode" });
  await expect(mode).toContainText("write mode Insert only");
  await page.getByRole("button", { name: "Edit mode" }).click();
  await expect(writeModes.getByRole("radio", { name: /Insert only/ })).toBeChecked();
  await writeModes.getByRole("radio", { name: /Mirror/ }).check();
  await page.getByRole("button", { name: "Save mode" }).click();
  await expect(mode).toContainText("write mode Mirror, detect deletes on");
  expect((await syncAttributes(syncId)).write_mode).toBe("mirror");
});
