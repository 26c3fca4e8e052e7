// Write modes in the console (docs/write-modes.md): the wizard's Mode step offers the destination's
// modes with what each does (Slack: insert only) and a sync created with one reaches the API; the
// settings view changes it; a run shows its mode and each skipped record says why it was skipped.
import { ADMIN } from "../support/api";
import { unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";
import { createFromWizard } from "./wizard";

const world = new PgScenario("modes_e2e");
const destinationName = unique("modes-destination");
const slackName = unique("modes-slack");
let modelId: number;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const { schema } = world;
  // Key 1 is in the destination already: insert mode skips it and creates 2.
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com'), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.contacts VALUES (1, 'kept@example.com');
  `);
  const sourceId = await world.connector("source", unique("modes-source"));
  await world.connector("destination", destinationName);
  const slackId = await world.connector("destination", slackName, "Slack", { auth_type: "webhook", webhook_url: "https://hooks.slack.com/services/T0/B0/x" });
  await world.post("/api/v1/catalogs", { connector_id: slackId, catalog: { streams: [{ name: "messages" }], schema_mode: "schemaless" } }, 200);
  modelId = await world.model(unique("modes-model"), sourceId, `SELECT * FROM ${schema}.people`);
});

test.afterAll(() => world.close());

const syncAttributes = (syncId: string) => world.attributes<{ write_mode: string }>(`/api/v1/syncs/${syncId}`);

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
  const syncId = await createFromWizard(page, unique("modes-sync"), { steps: 2 });
  world.track(`/api/v1/syncs/${syncId}`);
  expect((await syncAttributes(syncId)).write_mode).toBe("insert");
  await expect(page.locator("dl div").filter({ hasText: "Write mode" })).toContainText("Insert only");

  // A run: key 1 was there, so it is skipped with the reason; key 2 is created.
  const run = await world.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200);
  const runId = String(run.data.id);
  await expect
    .poll(async () => (await world.attributes<{ status: string }>(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).status, { timeout: 60_000 })
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
  // A changed mode first shows what the next run will send (issue 35 point 2); its own Save saves it.
  await page.getByRole("dialog", { name: "Before you save the mode" }).getByRole("button", { name: /^Save mode/ }).click();
  await expect(mode).toContainText("write mode Mirror, detect deletes on");
  expect((await syncAttributes(syncId)).write_mode).toBe("mirror");
});
