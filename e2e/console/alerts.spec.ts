// Alerts in the console: a webhook channel whose test button reaches a real local receiver, an email
// channel, and an alert created through the form that then lists as OK.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ADMIN, Api } from "../support/api";
import { ensureTestDatabase, sql } from "../support/data";
import { rejectingSync, trigger, waitForRun } from "../support/run-scenarios";
import { expect, shot, signIn, test, url } from "./fixtures";

let server: Server;
let receiverUrl = "";
const received: Record<string, unknown>[] = [];

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
});

const tables: string[] = [];

test.afterAll(async () => {
  await new Promise((r) => server.close(r));
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("an admin creates channels, tests one, and creates an alert", async ({ page, consoleErrors, request }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  const suffix = randomBytes(3).toString("hex");
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole("link", { name: "Alerts", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible({ timeout: 60_000 });

  // A webhook channel, then its test button.
  await page.getByRole("button", { name: "New channel" }).click();
  const channelDialog = page.getByRole("dialog", { name: "New alert channel" });
  await channelDialog.getByLabel("Name").fill(`Ops hook ${suffix}`);
  await channelDialog.getByLabel("Type").selectOption("webhook");
  await channelDialog.getByLabel("URL").fill(receiverUrl);
  await channelDialog.getByRole("button", { name: "Create channel" }).click();
  await expect(channelDialog).toBeHidden();
  const hookRow = page.getByRole("row", { name: new RegExp(`Ops hook ${suffix}`) });
  await expect(hookRow).toBeVisible();
  await hookRow.getByRole("button", { name: "Send test" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Test message sent." })).toBeVisible();
  expect(received.some((r) => r.event === "alert.test" && r.channel_name === `Ops hook ${suffix}`)).toBe(true);

  // An email channel: a missing recipient is said in the form.
  await page.getByRole("button", { name: "New channel" }).click();
  await channelDialog.getByLabel("Name").fill(`Ops mail ${suffix}`);
  await channelDialog.getByRole("button", { name: "Create channel" }).click();
  await expect(channelDialog.getByText(/Recipients/).last()).toBeVisible();
  // Addresses of this test's own: an address gets a few confirmation mails a day across workspaces,
  // and other specs on this server mail ops@example.com too.
  await channelDialog.getByLabel("Recipients").fill(`ops-${suffix}@example.com, oncall-${suffix}@example.com`);
  await channelDialog.getByRole("button", { name: "Create channel" }).click();
  await expect(channelDialog).toBeHidden();
  // Neither address is a member's: each waits for its confirmation, and the list says so.
  const mailRow = page.getByRole("row", { name: new RegExp(`Ops mail ${suffix}`) });
  await expect(mailRow.getByRole("list", { name: "Recipients" }).getByRole("listitem")).toHaveText([
    new RegExp(`ops-${suffix}@example\\.com.*pending confirmation`),
    new RegExp(`oncall-${suffix}@example\\.com.*pending confirmation`),
  ]);

  // An alert on every sync: runs longer than 30 minutes, to both channels.
  await page.getByRole("button", { name: "New alert" }).click();
  const ruleDialog = page.getByRole("dialog", { name: "New alert" });
  await ruleDialog.getByLabel("Name").fill(`Slow runs ${suffix}`);
  await ruleDialog.getByLabel("Condition").selectOption("run_duration");
  await ruleDialog.getByRole("button", { name: "Create alert" }).click();
  await expect(ruleDialog.getByText("Threshold is required for run_duration (in minutes)")).toBeVisible();
  await ruleDialog.getByLabel("Threshold (minutes)").fill("30");
  await ruleDialog.getByLabel(`Ops hook ${suffix} (webhook)`).check();
  await ruleDialog.getByLabel(`Ops mail ${suffix} (email)`).check();
  await ruleDialog.getByRole("button", { name: "Create alert" }).click();
  await expect(ruleDialog).toBeHidden();
  const ruleRow = page.getByRole("row", { name: new RegExp(`Slow runs ${suffix}`) });
  await expect(ruleRow).toContainText("A run takes longer than 30 minutes");
  await expect(ruleRow).toContainText("Every sync");
  await expect(ruleRow).toContainText("OK");
  await shot(page, "alerts");

  // What the API holds is what the form said.
  const login = await request.post(url("/api/v1/login"), { data: ADMIN });
  const api = new Api({ token: (await login.json()).data.attributes.token });
  const rules = (await (await api.get(url("/api/v1/alert_rules"))).json()).data as { attributes: { name: string; condition: string; threshold: number; channel_ids: number[] } }[];
  expect(rules.find((r) => r.attributes.name === `Slow runs ${suffix}`)?.attributes).toMatchObject({ condition: "run_duration", threshold: 30, channel_ids: expect.any(Array) });
  expect(rules.find((r) => r.attributes.name === `Slow runs ${suffix}`)?.attributes.channel_ids).toHaveLength(2);

  // Disabling from the list.
  await ruleRow.getByRole("button", { name: "Disable" }).click();
  await expect(ruleRow).toContainText("Disabled");
});

test("a firing alert's email, logged for want of SMTP, is read in the alert events", async ({ page, consoleErrors, request }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  await ensureTestDatabase();
  const suffix = randomBytes(3).toString("hex");
  const login = await request.post(url("/api/v1/login"), { data: ADMIN });
  const api = new Api({ token: (await login.json()).data.attributes.token });
  const { syncId, tables: created } = await rejectingSync(api, 20, 3);
  tables.push(...created);
  const channel = await api.post(url("/api/v1/alert_channels"), { alert_channel: { name: `Mail ${suffix}`, channel_type: "email", recipients: [ADMIN.email] } });
  const channelId = Number((await channel.json()).data.id);
  const rule = await api.post(url("/api/v1/alert_rules"), {
    alert_rule: { name: `Rejected rows ${suffix}`, sync_id: syncId, condition: "rejected_rows", threshold: 1, channel_ids: [channelId] },
  });
  expect(rule.status(), await rule.text()).toBe(201);
  const runId = await trigger(api, syncId);
  await waitForRun(api, syncId, runId);

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url("/settings/alerts"));
  const events = page.getByRole("list", { name: "Alert events" });
  const item = events.getByRole("listitem").filter({ hasText: `Rejected rows ${suffix}` }).first();
  await expect(item).toBeVisible({ timeout: 60_000 });
  await expect(item).toContainText("Firing");
  await expect(item).toContainText("more than 1 rejected rows in a run");
  await expect(item).toContainText("20 rows sent, 3 rejected");
  // The mail goes out on the alert queue a few seconds after the run ends: a page that loaded before
  // shows it pending until the list's next refresh (every 15 s).
  await expect(item.getByRole("list", { name: "Deliveries" })).toContainText(`Mail ${suffix}: logged (no SMTP)`, { timeout: 30_000 });
  await expect(page.getByRole("row", { name: new RegExp(`Rejected rows ${suffix}`) })).toContainText("Firing (1)", { timeout: 30_000 });
  await shot(page, "alert-events");
});
