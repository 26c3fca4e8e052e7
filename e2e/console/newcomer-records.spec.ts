// Issue 20, points 7, 8 and 10 as a newcomer meets them, at 1280×800 and 1440×900: a run's records
// searched by primary key and opened (source row, mapped payload, request, response) and exported
// as CSV with the status filter; "Test with one row" says what it will write, sends the row picked
// by primary key and shows the result on the page; a PostgreSQL destination's page shows labelled
// settings in the definition's order and no HTTP options or raw JSON Schema.
import { readFile } from "node:fs/promises";
import { request as playwrightRequest, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";

const schema = unique("records_e2e");
const destinationName = unique("records-destination");
let context: APIRequestContext;
let api: Api;
let destinationId: number;
let syncId: string;
let runId: string;
const created: string[] = [];

async function post(path: string, data: unknown, status = 201): Promise<{ data: { id: string }; id?: string }> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // Row 3 has no email: the destination's NOT NULL refuses it, so the run has a failed record.
  await sql(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com'), (2, 'alan@example.com'), (3, NULL), (4, 'edsger@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
  `);
  context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  // No Workspace-Id: the admin's default workspace, the one the console opens.
  api = new Api({ token: await loginAs(context, ADMIN.email, ADMIN.password) });
  const connector = (type: string, name: string) => ({
    connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration({ schema }) },
  });
  const sourceId = Number((await post("/api/v1/connectors", connector("source", unique("records-source")))).data.id);
  created.unshift(`/api/v1/connectors/${sourceId}`);
  destinationId = Number((await post("/api/v1/connectors", connector("destination", destinationName))).data.id);
  created.unshift(`/api/v1/connectors/${destinationId}`);
  expect((await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = Number(
    (
      await post("/api/v1/models", {
        model: { name: unique("records-model"), query: `SELECT * FROM ${schema}.people`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
      })
    ).data.id,
  );
  created.unshift(`/api/v1/models/${modelId}`);
  const sync = await post(
    "/api/v1/syncs",
    {
      sync: {
        name: unique("records-sync"),
        source_id: sourceId,
        destination_id: destinationId,
        model_id: modelId,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: "contacts",
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "email", to: "email", mapping_type: "standard" },
        ],
      },
    },
    200,
  );
  syncId = String(sync.id);
  created.unshift(`/api/v1/syncs/${syncId}`);
  runId = String((await post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200)).data.id);
  await expect
    .poll(async () => (await (await api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data.attributes.status, { timeout: 60_000 })
    .toMatch(/^(success|failed)$/);
});

test.afterAll(async () => {
  for (const path of created) await api.delete(path);
  await context.dispose();
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

/** A full-page screenshot, kept in the test's output folder and attached to its report. */
async function attach(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]) {
  const size = `${viewport.width}x${viewport.height}`;

  test(`records: search by primary key, payload view and CSV export at ${size}`, async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors; // the fixture fails the test on a browser console error
    await page.setViewportSize(viewport);
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${syncId}/runs/${runId}`));
    const records = page.getByRole("table", { name: "Records" });
    await expect(records.getByRole("row")).toHaveCount(5);

    await page.getByRole("searchbox", { name: "Primary key" }).fill("3");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(records.getByRole("row")).toHaveCount(2);
    await expect(records.getByRole("row").nth(1)).toContainText("failed");
    await page.getByRole("button", { name: "Show details of record 3" }).click();
    const details = page.getByTestId("record-details");
    await expect(details.getByLabel("Source row")).toContainText('"email": null');
    await expect(details.getByLabel("Mapped payload")).toContainText('"id": 3');
    await expect(details).toContainText("as sent");
    await expect(details.getByLabel("Request")).toContainText("contacts");
    await expect(details.getByLabel("Response")).toContainText(/null/);
    await attach(page, testInfo, `records-search-${size}`);

    // A record that succeeded shows the row mapped now with the sync's mapping.
    await page.getByRole("button", { name: "Clear" }).click();
    await page.getByRole("searchbox", { name: "Primary key" }).fill("2");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(records.getByRole("row")).toHaveCount(2);
    await page.getByRole("button", { name: "Show details of record 2" }).click();
    await expect(page.getByTestId("record-details").getByLabel("Mapped payload")).toContainText('"email": "alan@example.com"');
    await expect(page.getByTestId("record-details")).toContainText("mapped now");

    // The export follows the filters on screen.
    await page.getByRole("button", { name: "Clear" }).click();
    await page.getByLabel("Status").selectOption("failed");
    await expect(records.getByRole("button", { name: /details of record/ })).toHaveCount(1);
    await expect(records.getByRole("button", { name: "Hide details of record 3" })).toBeVisible();
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toBe(`sync-${syncId}-run-${runId}-records-failed.csv`);
    const csv = await readFile((await download.path())!, "utf8");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("record_id,primary_key,status,action,error,created_at,source_row");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(",3,failed,");
  });

  test(`test with one row: confirmation, picked row and inline result at ${size}`, async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await page.setViewportSize(viewport);
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${syncId}`));
    await page.getByRole("button", { name: "Test with one row" }).click();
    const dialog = page.getByRole("dialog", { name: "Send one row to the destination?" });
    await expect(dialog).toContainText(`writes one real row to ${destinationName} (Postgresql), stream contacts`);
    await dialog.getByLabel("Row to send: its id").fill("4");
    await attach(page, testInfo, `test-row-confirm-${size}`);
    await dialog.getByRole("button", { name: "Send row 4" }).click();
    await expect(dialog).toBeHidden();
    const result = page.getByTestId("test-run-result");
    await expect(result).toContainText("success", { timeout: 60_000 });
    const panels = page.getByTestId("record-details");
    await expect(panels.getByLabel("Source row")).toContainText('"id": 4');
    await expect(panels.getByLabel("Mapped payload")).toContainText('"email": "edsger@example.com"');
    await expect(panels.getByLabel("Response")).toContainText("Accepted");
    // The header follows the finished test run: nothing is running, the button is back.
    await expect(page.getByRole("button", { name: "Test with one row" })).toBeEnabled();
    await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    // No toast stands in for the result.
    await expect(page.getByText("Sync test triggered successful")).toHaveCount(0);
    await attach(page, testInfo, `test-row-result-${size}`);
  });

  test(`a PostgreSQL destination shows labelled settings in order and no HTTP options at ${size}`, async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await page.setViewportSize(viewport);
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/destinations/${destinationId}`));
    const settings = page.getByTestId("connector-settings").first();
    await expect(settings).toBeVisible();
    const labels = (await settings.locator("dt").allTextContents()).map((t) => t.trim());
    const order = ["Host", "Port", "Database", "Schema", "Username", "SSL mode"].map((l) => labels.indexOf(l));
    expect(order.every((i) => i >= 0), `labels shown: ${labels.join(", ")}`).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    await expect(page.getByText(/CREDENTIALS\.|credentials\.auth_type/i)).toHaveCount(0);
    await expect(settings).toContainText("Credentials");
    await attach(page, testInfo, `destination-settings-${size}`);

    await page.getByRole("tab", { name: "Streams (catalog)" }).click();
    await page.getByRole("button", { name: /contacts/ }).click();
    await expect(page.getByRole("table", { name: "Columns of contacts" })).toContainText("email");
    await expect(page.getByLabel("Rows per write")).toBeVisible();
    await expect(page.getByText("Request method")).toHaveCount(0);
    await expect(page.getByText("Batch support")).toHaveCount(0);
    await expect(page.getByText(/JSON Schema/)).toHaveCount(0);
    await expect(page.getByText('"properties"')).toHaveCount(0);
    await attach(page, testInfo, `destination-streams-${size}`);
  });
}
