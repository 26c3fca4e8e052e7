// Edit dialogs send what the person changed and keep what they did not touch, at 1280×800 and
// 1440×900: an alert rule whose sync was deleted is renamed (before, the dialog re-sent the deleted
// sync and got a 422), and a webhook's event that this console does not know survives an edit of
// its URL (before, the dialog dropped it and saved the loss).
import { Client } from "pg";
import { ADMIN } from "../support/api";
import { appDatabase } from "../support/app-database";
import { unique } from "../support/data";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";

const world = new PgScenario("edit_keeps");
let sourceId: number;
let destinationId: number;
let modelId: number;

test.beforeAll(async () => {
  const { schema } = world;
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL);
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
  `);
  sourceId = await world.connector("source", unique("keeps-source"));
  destinationId = await world.connector("destination", unique("keeps-destination"));
  const discovered = await world.api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  modelId = await world.model(unique("keeps-model"), sourceId, `SELECT * FROM ${world.schema}.people`);
});

test.afterAll(() => world.close());

/** Adds `event` to a subscription in the server's own database, as a newer server would have stored it. */
async function storeUnknownEvent(id: string, event: string): Promise<void> {
  const hook = (await (await world.api.get(`/api/v1/webhook_subscriptions/${id}`)).json()).data.attributes;
  const workspace = (await (await world.api.get(`/api/v1/workspaces/${hook.workspace_id}`)).json()).data.attributes;
  const db = await appDatabase(workspace.name);
  const client = new Client({ ...db, password: db.password || undefined });
  await client.connect();
  try {
    await client.query("UPDATE webhook_subscriptions SET events = array_append(events, $1) WHERE id = $2", [event, Number(id)]);
  } finally {
    await client.end();
  }
}

test.describe.configure({ timeout: 240_000 });

atEachViewport(() => {
  test("an alert rule whose sync was deleted can be renamed", async ({ page }, testInfo) => {
    const sync = await world.post("/api/v1/syncs", {
      sync: {
        model_id: modelId, source_id: sourceId, destination_id: destinationId, stream_name: "contacts", sync_mode: "full_refresh",
        schedule_type: "manual", configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
      },
    }, 200);
    const channel = await world.post("/api/v1/alert_channels", { alert_channel: { name: unique("keeps-channel"), channel_type: "email", recipients: ["ops@example.com"] } });
    const name = unique("keeps-rule");
    const rule = await world.post("/api/v1/alert_rules", { alert_rule: { name, condition: "run_failed", sync_id: Number(sync.data.id), channel_ids: [Number(channel.data.id)] } });
    const deleted = await world.api.delete(`/api/v1/syncs/${sync.data.id}`);
    expect(deleted.status(), await deleted.text()).toBeLessThan(300);

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url("/settings/alerts"));
    await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible({ timeout: 60_000 });
    await page.getByRole("button", { name: `Edit ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Edit alert" });
    await dialog.getByLabel("Name").fill(`${name} renamed`);
    await attachShot(page, testInfo, "rule-edit-deleted-sync");
    await dialog.getByRole("button", { name: "Save alert" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("button", { name: `Edit ${name} renamed` })).toBeVisible();
    const stored = await (await world.api.get(`/api/v1/alert_rules/${rule.data.id}`)).json();
    expect(stored.data.attributes).toMatchObject({ name: `${name} renamed`, sync_id: Number(sync.data.id) });
  });

  test("a webhook's event unknown to the console is shown and kept when its URL is edited", async ({ page }, testInfo) => {
    const endpoint = `http://127.0.0.1:9/${unique("keeps-hook")}`;
    const hook = await world.post("/api/v1/webhook_subscriptions", { webhook_subscription: { url: endpoint, events: ["sync_run.failed"] } });
    await storeUnknownEvent(hook.data.id, "sync_run.someday");

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/settings/webhooks/${hook.data.id}`));
    await expect(page.getByRole("heading", { level: 1, name: endpoint })).toBeVisible({ timeout: 60_000 });
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Edit webhook" });
    await expect(dialog.getByTestId("other-events")).toContainText("sync_run.someday");
    await dialog.getByLabel("Endpoint URL").fill(`${endpoint}-v2`);
    await attachShot(page, testInfo, "webhook-edit-unknown-event");
    await dialog.getByRole("button", { name: "Save webhook" }).click();
    await expect(dialog).toBeHidden();
    const stored = await (await world.api.get(`/api/v1/webhook_subscriptions/${hook.data.id}`)).json();
    expect(stored.data.attributes).toMatchObject({ url: `${endpoint}-v2`, events: ["sync_run.failed", "sync_run.someday"] });
  });
});
