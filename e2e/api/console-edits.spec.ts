// The updates the console's edit forms send (a whole webhook, a whole alert rule) over real HTTP,
// and the attacks on them from inside and outside the workspace: a Viewer, a token with the Viewer
// role and another workspace's admin change nothing; the audit log records each edit once, pages,
// and never holds the webhook's secret.
import { expect, test } from "@playwright/test";
import { apiTokenFor, expectError, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";

let ws: TestWorkspace;
let other: TestWorkspace;
let webhook: { id: string; secret: string };
let rule: { id: string };

test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
  other = await newWorkspace(request);
  const hook = await ws.admin.post("/api/v1/webhook_subscriptions", {
    webhook_subscription: { url: "http://127.0.0.1:9/before", events: ["sync_run.started"] },
  });
  expect(hook.status(), await hook.text()).toBe(201);
  const hookData = (await hook.json()).data;
  webhook = { id: hookData.id, secret: hookData.attributes.secret };
  const channel = await ws.admin.post("/api/v1/alert_channels", { alert_channel: { name: "edits", channel_type: "webhook", url: "http://127.0.0.1:9/alerts" } });
  expect(channel.status(), await channel.text()).toBe(201);
  const created = await ws.admin.post("/api/v1/alert_rules", {
    alert_rule: { name: "before", condition: "run_failed", channel_ids: [Number((await channel.json()).data.id)] },
  });
  expect(created.status(), await created.text()).toBe(201);
  rule = { id: (await created.json()).data.id };
});

const webhookEdit = { webhook_subscription: { url: "http://127.0.0.1:9/after", events: ["sync_run.succeeded", "sync_run.failed"], sync_ids: null } };
const ruleEdit = (name: string) => ({ alert_rule: { name, condition: "rejected_rows", threshold: 30, sync_id: null } });

test("a Viewer, a Viewer-role token and another workspace's admin cannot edit a webhook or an alert rule", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  const token = await apiTokenFor(request, ws.admin, { role_id: ws.roles.Viewer });
  for (const api of [viewer.api, token.api]) {
    await expectError(await api.put(`/api/v1/webhook_subscriptions/${webhook.id}`, webhookEdit), 403, "forbidden");
    await expectError(await api.put(`/api/v1/alert_rules/${rule.id}`, ruleEdit("by a viewer")), 403, "forbidden");
  }
  // Not yours and not there are the same answer.
  await expectError(await other.admin.put(`/api/v1/webhook_subscriptions/${webhook.id}`, webhookEdit), 404, "not_found");
  await expectError(await other.admin.put(`/api/v1/alert_rules/${rule.id}`, ruleEdit("from elsewhere")), 404, "not_found");

  const hook = (await (await ws.admin.get(`/api/v1/webhook_subscriptions/${webhook.id}`)).json()).data.attributes;
  expect(hook).toMatchObject({ url: "http://127.0.0.1:9/before", events: ["sync_run.started"] });
  const kept = (await (await ws.admin.get(`/api/v1/alert_rules/${rule.id}`)).json()).data.attributes;
  expect(kept).toMatchObject({ name: "before", condition: "run_failed" });
  const audit = await (await ws.admin.get("/api/v1/audit_logs?per_page=100")).json();
  expect(audit.data.filter((e: { attributes: { action: string } }) => e.attributes.action === "update")).toEqual([]);
});

test("the edit forms' updates: the secret stays masked and out of the audit log, each edit is one entry", async () => {
  const put = await ws.admin.put(`/api/v1/webhook_subscriptions/${webhook.id}`, webhookEdit);
  expect(put.status(), await put.text()).toBe(200);
  const text = await put.text();
  expect(text).not.toContain(webhook.secret);
  expect(JSON.parse(text).data.attributes).toMatchObject({ ...webhookEdit.webhook_subscription, secret: `whsec_…${webhook.secret.slice(-4)}` });

  const edited = await ws.admin.put(`/api/v1/alert_rules/${rule.id}`, ruleEdit("after"));
  expect(edited.status(), await edited.text()).toBe(200);
  expect((await edited.json()).data.attributes).toMatchObject({ name: "after", condition: "rejected_rows", threshold: 30 });
  // A threshold the new condition cannot take is a 422 on the field, not a 500.
  await expectError(await ws.admin.put(`/api/v1/alert_rules/${rule.id}`, { alert_rule: { condition: "rejected_rows_percent", threshold: 150 } }), 422, "validation_failed");

  const hookLog = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=webhook_subscription&resource_id=${webhook.id}`)).json();
  expect(JSON.stringify(hookLog)).not.toContain(webhook.secret);
  const update = hookLog.data.filter((e: { attributes: { action: string } }) => e.attributes.action === "update");
  expect(update).toHaveLength(1);
  expect(update[0].attributes.metadata).toMatchObject({ url: "http://127.0.0.1:9/after", events: ["sync_run.succeeded", "sync_run.failed"] });
  const ruleLog = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=alert_rule&resource_id=${rule.id}`)).json();
  expect(ruleLog.data.map((e: { attributes: { action: string } }) => e.attributes.action)).toEqual(["update", "create"]);
  expect(ruleLog.data[0].attributes.metadata).toMatchObject({ name: "after" });
});

test("the audit log pages as the console shows it: per_page, total, and next", async () => {
  const first = await (await ws.admin.get("/api/v1/audit_logs?per_page=2")).json();
  expect(first.data).toHaveLength(2);
  expect(first.meta.total_count).toBeGreaterThan(2);
  expect(first.meta.total_pages).toBe(Math.ceil(first.meta.total_count / 2));
  expect(first.links.next).toContain("page");
  const second = await (await ws.admin.get("/api/v1/audit_logs?per_page=2&page=2")).json();
  expect(second.data[0].id).not.toBe(first.data[0].id);
  expect(new Date(second.data[0].attributes.created_at).getTime()).toBeLessThanOrEqual(new Date(first.data[1].attributes.created_at).getTime());
});
