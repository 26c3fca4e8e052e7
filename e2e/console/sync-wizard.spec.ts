// The sync wizard end to end: a sync created with "Detect deletes" on reaches the API with
// detect_deletes true, the detail page says so, and its settings view turns it off again.
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";

const schema = unique("wizard_e2e");
const destinationName = unique("wizard-destination");
let context: APIRequestContext;
let api: Api;
let modelId: number;
const created: string[] = [];

async function post(path: string, data: unknown): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(201);
  const id = String((await res.json()).data.id);
  created.unshift(`${path}/${id}`);
  return Number(id);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  await sql(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com'), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
  `);
  context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  // No Workspace-Id: the admin's default workspace, the one the console opens.
  api = new Api({ token: await loginAs(context, ADMIN.email, ADMIN.password) });
  const connector = (type: string, name: string) => ({
    connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration({ schema }) },
  });
  const sourceId = await post("/api/v1/connectors", connector("source", unique("wizard-source")));
  await post("/api/v1/connectors", connector("destination", destinationName));
  modelId = await post("/api/v1/models", {
    model: { name: unique("wizard-model"), query: `SELECT * FROM ${schema}.people`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
});

test.afterAll(async () => {
  for (const path of created) await api.delete(path);
  await context.dispose();
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

async function detectDeletesOf(syncId: string): Promise<unknown> {
  const res = await api.get(`/api/v1/syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes.detect_deletes;
}

test("a sync created with Detect deletes on detects deletes, until edited off", async ({ page, consoleErrors }) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/syncs/new?model=${modelId}`));
  await expect(page.getByLabel("Model")).toHaveValue(String(modelId));
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("contacts");
  await page.getByRole("button", { name: "Continue" }).click();

  // The required fields are pre-filled from model columns of the same name.
  await expect(page.getByLabel("Mapping 1 destination field", { exact: true })).not.toHaveValue("", { timeout: 60_000 });
  await page.getByRole("button", { name: "Continue" }).click();

  const detectDeletes = page.getByRole("checkbox", { name: /Detect deletes/ });
  await expect(detectDeletes).not.toBeChecked();
  await page.getByLabel(/Full refresh/).check();
  await detectDeletes.check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(unique("wizard-sync"));
  await page.getByRole("button", { name: "Create sync" }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  const syncId = new URL(page.url()).pathname.split("/").pop()!;
  created.unshift(`/api/v1/syncs/${syncId}`);

  expect(await detectDeletesOf(syncId)).toBe(true);
  const schedule = page.locator("dl").filter({ hasText: "Detect deletes" });
  await expect(schedule.locator("div").filter({ hasText: "Detect deletes" })).toContainText("On");

  // Editing is the settings view: the Mode section alone shows the saved choice and saves it.
  await page.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL(/\/settings$/);
  await page.getByRole("button", { name: "Edit mode" }).click();
  await expect(detectDeletes).toBeChecked();
  await detectDeletes.uncheck();
  await page.getByRole("button", { name: "Save mode" }).click();
  await expect(page.getByRole("region", { name: "Mode" })).toContainText("detect deletes off");
  expect(await detectDeletesOf(syncId)).toBe(false);
  await page.goto(url(`/syncs/${syncId}`));
  await expect(schedule.locator("div").filter({ hasText: "Detect deletes" })).toContainText("Off");
});

test("the wizard's last step previews the first run's plan (counts and payloads), then runs it", async ({ page, consoleErrors }, testInfo) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/syncs/new?model=${modelId}`));
  await expect(page.getByLabel("Model")).toHaveValue(String(modelId));
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("contacts");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Mapping 1 destination field", { exact: true })).not.toHaveValue("", { timeout: 60_000 });
  for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(unique("wizard-preview"));
  await page.getByRole("button", { name: "Create and preview first run" }).click();

  // A new sync: every row is an insert; the samples show the payloads the mapping makes.
  await expect(page.getByRole("heading", { name: "Sync created: the plan of its first run" })).toBeVisible();
  const plan = page.getByTestId("plan");
  await expect(plan.locator("[data-plan-count=insert]")).toHaveText("2");
  await expect(plan.locator("[data-plan-count=delete]")).toHaveText("0");
  const inserts = plan.getByRole("region", { name: "Insert samples" });
  await inserts.locator("summary").first().click();
  await expect(inserts.locator("pre").last()).toContainText("@example.com");
  const path = testInfo.outputPath("wizard-first-run-plan.png");
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach("wizard-first-run-plan", { path, contentType: "image/png" });

  await page.getByRole("button", { name: "Run now" }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  const syncId = new URL(page.url()).pathname.split("/").pop()!;
  created.unshift(`/api/v1/syncs/${syncId}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("succeeded", { timeout: 60_000 });
});
