// Issue 35 point 6, at 1280×800 and 1440×900: the mapping editor is one line per mapping (no
// sideways scroll) and sets "if empty" on many mappings at once; a webhook's URL and events and an
// alert rule are edited in the console (the webhook's secret never shown again); Settings → Audit log
// lists those edits, filtered by resource; a Viewer is offered neither the page nor the edit buttons.
import { request as playwrightRequest } from "@playwright/test";
import { ADMIN, BASE_URL } from "../support/api";
import { unique } from "../support/data";
import { acceptInvitation } from "../support/mailbox";
import { atEachViewport, attachShot, expect, nav, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";
import { createFromWizard, wizardToMapping } from "./wizard";

const world = new PgScenario("console_features_e2e");
const destinationName = unique("features-destination");
const viewer = { email: `${unique("viewer")}@example.com`, password: "viewer-password-1" };
/** How a webhook's signing secret starts; answers show it masked as whsec_…<last 4>. */
const SECRET_PREFIX = "whsec_";
let modelId: number;
let channelId: number;
/** How the audit log names the admin: their name, else their email. */
let adminWho = ADMIN.email;

test.beforeAll(async () => {
  const { schema } = world;
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text, name text, note text);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com', 'Ada', NULL), (2, 'alan@example.com', 'Alan', 'hi');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text, name text, note text);
  `);
  const sourceId = await world.connector("source", unique("features-source"));
  await world.connector("destination", destinationName);
  modelId = await world.model(unique("features-model"), sourceId, `SELECT * FROM ${schema}.people ORDER BY id`);
  const channel = await world.post("/api/v1/alert_channels", {
    alert_channel: { name: unique("features-channel"), channel_type: "webhook", url: "http://127.0.0.1:9/alerts" },
  });
  channelId = Number(channel.data.id);
  // A Viewer of the console's workspace (the admin's default one).
  const me = (await (await world.api.get("/api/v1/users/me")).json()).data;
  adminWho = me.attributes.name || ADMIN.email;
  const roles = (await (await world.api.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const res = await world.api.post(`/api/v1/workspaces/${me.attributes.workspace_id}/members`, {
    member: { email: viewer.email, name: "Vi Viewer", role_id: Number(roles.find((r) => r.attributes.role_name === "Viewer")!.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  const context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  await acceptInvitation(context, viewer.email, viewer.password);
  await context.dispose();
});

test.afterAll(() => world.close());

atEachViewport(({ width }) => {
  // Each test signs in and opens pages cold on a shared, loaded machine: time, never a time assertion.
  test.describe.configure({ mode: "serial", timeout: 240_000 });
  let webhookId = "";
  let newUrl = "";
  let ruleId = "";
  let ruleName = "";

  test("mapping editor: one line per mapping without sideways scroll; if empty set on all selected at once and saved", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors; // the fixture fails the test on a browser console error
    await signIn(page, ADMIN.email, ADMIN.password);
    // The wizard's first open can take longer than wizard.ts waits on a loaded machine.
    await page.goto(url(`/syncs/new?model=${modelId}`));
    await expect(page.getByLabel("Model")).toHaveValue(String(modelId), { timeout: 120_000 });
    await wizardToMapping(page, modelId, destinationName);
    await page.getByRole("button", { name: "Map fields with the same name" }).click();
    await expect(page.getByRole("button", { name: /^Remove mapping \d+$/ })).toHaveCount(4);

    // Dense: each mapping's controls, "if empty" included, sit on one line, and nothing scrolls sideways.
    for (let n = 1; n <= 4; n++) {
      const type = await page.getByLabel(`Mapping ${n} type`, { exact: true }).boundingBox();
      const ifEmpty = await page.getByLabel(`Mapping ${n} if empty`, { exact: true }).boundingBox();
      const row = await page.getByTestId(`mapping-${n - 1}`).boundingBox();
      expect(ifEmpty!.y, `mapping ${n}: "if empty" is on the mapping's line`).toBeLessThan(type!.y + type!.height / 2);
      expect(row!.height, `mapping ${n} takes one line and its hint`).toBeLessThan(80);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);

    // All selected, keep destination value, applied; then mapping 1 alone back to write null.
    const bulk = page.getByTestId("bulk-null-policy");
    await expect(bulk.getByRole("button", { name: "Apply to selected" })).toBeDisabled();
    await page.getByLabel("Select all mappings", { exact: true }).check();
    await expect(bulk).toContainText("4 selected");
    await bulk.getByLabel("If empty, for the selected mappings").selectOption("skip");
    await bulk.getByRole("button", { name: "Apply to selected" }).click();
    await expect(page.getByRole("status").filter({ hasText: "If empty: keep destination value for 4 mappings." })).toBeVisible();
    for (let n = 1; n <= 4; n++) await expect(page.getByLabel(`Mapping ${n} if empty`, { exact: true })).toHaveValue("skip");
    await page.getByLabel("Select mapping 1", { exact: true }).check();
    await bulk.getByLabel("If empty, for the selected mappings").selectOption("write");
    await bulk.getByRole("button", { name: "Apply to selected" }).click();
    await expect(page.getByLabel("Mapping 1 if empty", { exact: true })).toHaveValue("write");
    await expect(page.getByLabel("Mapping 2 if empty", { exact: true })).toHaveValue("skip");
    await attachShot(page, testInfo, "mapping-bulk-null-policy");

    const first = await page.getByLabel("Mapping 1 destination field", { exact: true }).inputValue();
    const syncId = await createFromWizard(page, unique(`features-sync-${width}`));
    world.track(`/api/v1/syncs/${syncId}`);
    const { configuration } = await world.attributes<{ configuration: { to: string; null_policy?: string }[] }>(`/api/v1/syncs/${syncId}`);
    expect(configuration).toHaveLength(4);
    for (const m of configuration) expect(m.null_policy, m.to).toBe(m.to === first ? undefined : "skip");
  });

  test("a webhook's URL and events are edited; its secret is never shown again", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    const created = await world.post("/api/v1/webhook_subscriptions", {
      webhook_subscription: { url: `http://127.0.0.1:9/${unique("hook")}`, events: ["sync_run.started", "sync_run.failed"] },
    });
    webhookId = created.data.id;
    const secret = (created.data as unknown as { attributes: { secret: string } }).attributes.secret;
    expect(secret.startsWith(SECRET_PREFIX)).toBe(true);
    newUrl = `http://127.0.0.1:9/${unique("edited-hook")}`;

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/settings/webhooks/${webhookId}`));
    await page.getByRole("button", { name: "Edit", exact: true }).click({ timeout: 120_000 });
    const dialog = page.getByRole("dialog", { name: "Edit webhook" });
    await expect(dialog.getByLabel("sync_run.started")).toBeChecked();
    await expect(dialog.getByLabel("sync_run.succeeded")).not.toBeChecked();
    await dialog.getByLabel("Endpoint URL").fill(newUrl);
    await dialog.getByLabel("sync_run.started").uncheck();
    await dialog.getByLabel("sync_run.succeeded").check();
    await expect(dialog.getByText(secret)).toHaveCount(0);
    await dialog.getByRole("button", { name: "Save webhook" }).click();
    await expect(dialog).toBeHidden();

    await expect(page.getByRole("heading", { level: 1, name: newUrl })).toBeVisible();
    await expect(page.getByText("sync_run.succeeded, sync_run.failed", { exact: true })).toBeVisible();
    await expect(page.getByLabel("Signing secret (masked)")).toHaveText(`${SECRET_PREFIX}…${secret.slice(-4)}`);
    await expect(page.getByText(secret)).toHaveCount(0);
    await attachShot(page, testInfo, "webhook-edited");
    const saved = await world.attributes<{ url: string; events: string[]; secret: string }>(`/api/v1/webhook_subscriptions/${webhookId}`);
    expect(saved).toMatchObject({ url: newUrl, events: ["sync_run.succeeded", "sync_run.failed"] });
    expect(saved.secret).not.toBe(secret);
  });

  test("an alert rule is edited: name, condition and threshold", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    const created = await world.post("/api/v1/alert_rules", { alert_rule: { name: unique("features-rule"), condition: "run_failed", channel_ids: [channelId] } });
    ruleId = created.data.id;
    ruleName = unique("edited-rule");
    const before = (created.data as unknown as { attributes: { name: string } }).attributes.name;

    await signIn(page, ADMIN.email, ADMIN.password);
    await nav(page, "Alerts");
    await page.getByRole("button", { name: `Edit ${before}`, exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Edit alert" });
    await expect(dialog.getByLabel("Name")).toHaveValue(before);
    await dialog.getByLabel("Name").fill(ruleName);
    await dialog.getByLabel("Condition").selectOption("rejected_rows");
    await dialog.getByLabel("Threshold (rows)").fill("30");
    await dialog.getByRole("button", { name: "Save alert" }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByRole("table", { name: "Alert rules" }).getByRole("row").filter({ hasText: ruleName });
    await expect(row).toContainText("Rejected rows above a count 30 rows");
    await expect(page.getByRole("table", { name: "Alert rules" }).getByRole("row").filter({ hasText: before })).toHaveCount(0);
    await attachShot(page, testInfo, "alert-rule-edited");
    expect(await world.attributes(`/api/v1/alert_rules/${ruleId}`)).toMatchObject({ name: ruleName, condition: "rejected_rows", threshold: 30, channel_ids: [channelId] });
  });

  test("Settings → Audit log lists those edits, narrowed by resource, with their details", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await signIn(page, ADMIN.email, ADMIN.password);
    await nav(page, "Audit log");
    const table = page.getByRole("table", { name: "Audit log" });
    await expect(table.getByRole("columnheader")).toHaveText(["When", "Who", "Action", "Resource", "Details"]);

    await page.getByLabel("Resource type").selectOption("webhook_subscription");
    await table.getByRole("button", { name: `webhook subscription ${webhookId}`, exact: true }).first().click();
    await expect(page.getByRole("status").filter({ hasText: /^2 entries$/ })).toBeVisible();
    const update = table.getByRole("row").filter({ has: page.getByText("update", { exact: true }) });
    await expect(update).toContainText(newUrl);
    await expect(update).toContainText("events: sync_run.succeeded, sync_run.failed");
    await expect(update).toContainText(adminWho);
    await expect(table.getByRole("row").filter({ has: page.getByText("create", { exact: true }) })).toHaveCount(1);

    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Resource type").selectOption("alert_rule");
    // Cells run together in a row's text ("alert rule 2name: …"): the resource is matched by its button.
    const ruleRow = table
      .getByRole("row")
      .filter({ has: page.getByRole("button", { name: `alert rule ${ruleId}`, exact: true }) })
      .filter({ has: page.getByText("update", { exact: true }) });
    await expect(ruleRow).toContainText(`name: ${ruleName}`);
    await ruleRow.getByRole("button", { name: /changed:/ }).click();
    await expect(page.getByLabel("Entry details")).toContainText(`"resource_id": "${ruleId}"`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);
    await attachShot(page, testInfo, "audit-log");
  });

  test("a Viewer is offered neither the audit log nor the edit buttons", async ({ page, consoleErrors }) => {
    void consoleErrors;
    await signIn(page, viewer.email, viewer.password);
    const main = page.getByRole("navigation", { name: "Main" });
    await expect(main.getByRole("link", { name: "Alerts", exact: true })).toBeVisible();
    await expect(main.getByRole("link", { name: "Audit log", exact: true })).toHaveCount(0);
    await page.goto(url("/settings/audit-log"));
    await expect(page.getByRole("status").filter({ hasText: "Your role (Viewer) cannot see audit log" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Audit log" })).toHaveCount(0);

    await page.goto(url(`/settings/webhooks/${webhookId}`));
    await expect(page.getByRole("heading", { level: 1, name: newUrl })).toBeVisible();
    await expect(page.getByRole("button", { name: "Edit", exact: true })).toHaveCount(0);
    await nav(page, "Alerts");
    await expect(page.getByRole("table", { name: "Alert rules" }).getByRole("row").filter({ hasText: ruleName })).toBeVisible();
    await expect(page.getByRole("button", { name: `Edit ${ruleName}`, exact: true })).toHaveCount(0);
  });
});
