// Alerts over real HTTP: channels and rules CRUD, clear 4xx, roles (a Viewer reads but cannot
// create), tenancy (another workspace's rule is a 404), a Slack URL masked, the test button against
// a real local receiver, and the audit log of every change.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { ADMIN, ISO_TIME, expectError, fieldErrors, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";
import { ensureTestDatabase, sql } from "../support/data";
import { rejectingSync, trigger, waitForRun } from "../support/run-scenarios";

let ws: TestWorkspace;
let other: TestWorkspace;
let server: Server;
let receiverUrl = "";
const received: { path: string; body: Record<string, unknown> }[] = [];

test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
  other = await newWorkspace(request);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "/", body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") });
      res.writeHead(req.url === "/down" ? 503 : 200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

const tables: string[] = [];

test.afterAll(async () => {
  await new Promise((r) => server.close(r));
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

async function channel(api = ws.admin, body: Record<string, unknown> = { channel_type: "email", recipients: ["ops@example.com"] }) {
  const res = await api.post("/api/v1/alert_channels", { alert_channel: { name: `ch ${Math.random()}`, ...body } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data;
}

test("channels and rules: create, list, show, update, delete, audited", async () => {
  const email = await channel();
  expect(email).toMatchObject({ type: "alert_channels", attributes: { channel_type: "email", recipients: ["ops@example.com"], url: null, workspace_id: ws.id } });
  // Not a member's address: it gets a confirmation link (logged here, without SMTP) and no alert until it confirms.
  expect(email.attributes.recipient_states).toEqual([{ email: "ops@example.com", status: "pending", confirmation_sent_at: expect.stringMatching(ISO_TIME) }]);
  expect(email.attributes.created_at).toMatch(ISO_TIME);

  const res = await ws.admin.post("/api/v1/alert_rules", {
    alert_rule: { name: "Rejects", condition: "rejected_rows_percent", threshold: 5, channel_ids: [Number(email.id)] },
  });
  expect(res.status(), await res.text()).toBe(201);
  const rule = (await res.json()).data;
  expect(rule.attributes).toMatchObject({ name: "Rejects", sync_id: null, condition: "rejected_rows_percent", threshold: 5, enabled: true, status: "ok", firing: [] });
  expect(rule.attributes.channel_ids).toEqual([Number(email.id)]);

  const list = await (await ws.admin.get("/api/v1/alert_rules")).json();
  expect(Object.keys(list).sort()).toEqual(["data", "links", "meta"]);
  expect(list.data.map((r: { id: string }) => r.id)).toContain(rule.id);

  const updated = await ws.admin.put(`/api/v1/alert_rules/${rule.id}`, { alert_rule: { threshold: 20, enabled: false } });
  expect(updated.status(), await updated.text()).toBe(200);
  expect((await updated.json()).data.attributes).toMatchObject({ threshold: 20, enabled: false });

  // A channel in use cannot go; the rule first.
  await expectError(await ws.admin.delete(`/api/v1/alert_channels/${email.id}`), 409, "conflict");
  expect((await ws.admin.delete(`/api/v1/alert_rules/${rule.id}`)).status()).toBe(204);
  expect((await ws.admin.delete(`/api/v1/alert_channels/${email.id}`)).status()).toBe(204);
  await expectError(await ws.admin.get(`/api/v1/alert_rules/${rule.id}`), 404, "not_found");

  const audit = await (await ws.admin.get("/api/v1/audit_logs?per_page=100")).json();
  const seen = audit.data.map((a: { attributes: { action: string; resource_type: string } }) => `${a.attributes.action} ${a.attributes.resource_type}`);
  for (const entry of ["create alert_channel", "create alert_rule", "update alert_rule", "delete alert_rule", "delete alert_channel"]) expect(seen).toContain(entry);
});

test("clear 4xx for bad input", async () => {
  const noUrl = await expectError(await ws.admin.post("/api/v1/alert_channels", { alert_channel: { name: "s", channel_type: "slack" } }), 422, "validation_failed");
  expect(fieldErrors(noUrl)).toContainEqual({ path: "alert_channel.url", message: "is required for a slack channel" });
  const badType = await expectError(await ws.admin.post("/api/v1/alert_channels", { alert_channel: { name: "s", channel_type: "pager" } }), 422, "validation_failed");
  expect(fieldErrors(badType)[0]).toMatchObject({ path: "alert_channel.channel_type", message: expect.stringContaining("email, slack, webhook") });
  const metadata = await expectError(
    await ws.admin.post("/api/v1/alert_channels", { alert_channel: { name: "m", channel_type: "webhook", url: "http://169.254.169.254/x" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(metadata)[0].path).toBe("alert_channel.url");

  const email = await channel();
  const noThreshold = await expectError(
    await ws.admin.post("/api/v1/alert_rules", { alert_rule: { name: "r", condition: "run_duration", channel_ids: [Number(email.id)] } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(noThreshold)).toContainEqual({ path: "alert_rule.threshold", message: "is required for run_duration (in minutes)" });
  const unknownSync = await expectError(
    await ws.admin.post("/api/v1/alert_rules", { alert_rule: { name: "r", condition: "run_failed", sync_id: 99999999, channel_ids: [Number(email.id)] } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(unknownSync)).toContainEqual({ path: "alert_rule.sync_id", message: "sync 99999999 was not found in this workspace" });
  await expectError(await ws.admin.get("/api/v1/alert_rules/abc"), 400, "bad_request");
});

test("a Viewer reads alerts but cannot create, change or test them", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  const email = await channel();
  expect((await viewer.api.get("/api/v1/alert_channels")).status()).toBe(200);
  expect((await viewer.api.get("/api/v1/alert_events")).status()).toBe(200);
  await expectError(await viewer.api.post("/api/v1/alert_channels", { alert_channel: { name: "v", channel_type: "email", recipients: ["v@example.com"] } }), 403, "forbidden");
  await expectError(await viewer.api.post("/api/v1/alert_rules", { alert_rule: { name: "v", condition: "run_failed", channel_ids: [Number(email.id)] } }), 403, "forbidden");
  await expectError(await viewer.api.post(`/api/v1/alert_channels/${email.id}/test`), 403, "forbidden");
  await expectError(await viewer.api.delete(`/api/v1/alert_channels/${email.id}`), 403, "forbidden");
});

test("another workspace's channel and rule are 404, and cannot be used by a rule here", async () => {
  const theirs = await channel(other.admin);
  const res = await other.admin.post("/api/v1/alert_rules", { alert_rule: { name: "theirs", condition: "run_failed", channel_ids: [Number(theirs.id)] } });
  const theirRule = (await res.json()).data;
  await expectError(await ws.admin.get(`/api/v1/alert_rules/${theirRule.id}`), 404, "not_found");
  await expectError(await ws.admin.put(`/api/v1/alert_rules/${theirRule.id}`, { alert_rule: { enabled: false } }), 404, "not_found");
  await expectError(await ws.admin.delete(`/api/v1/alert_rules/${theirRule.id}`), 404, "not_found");
  await expectError(await ws.admin.get(`/api/v1/alert_channels/${theirs.id}`), 404, "not_found");
  await expectError(await ws.admin.post(`/api/v1/alert_channels/${theirs.id}/test`), 404, "not_found");
  const steal = await expectError(
    await ws.admin.post("/api/v1/alert_rules", { alert_rule: { name: "steal", condition: "run_failed", channel_ids: [Number(theirs.id)] } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(steal)[0].path).toBe("alert_rule.channel_ids");
  expect((await (await other.admin.get(`/api/v1/alert_rules/${theirRule.id}`)).json()).data.attributes.enabled).toBe(true);
});

test("a Slack URL is masked everywhere and kept when the mask is sent back; the test button reaches it", async () => {
  const secretPath = "/services/T0/B0/sEcReTtOkEn";
  const slack = await channel(ws.admin, { channel_type: "slack", url: `${receiverUrl}${secretPath}` });
  expect(slack.attributes.url).toBe("*************");
  expect(slack.attributes.url_host).toBe(new URL(receiverUrl).host);
  for (const body of [await (await ws.admin.get(`/api/v1/alert_channels/${slack.id}`)).text(), await (await ws.admin.get("/api/v1/alert_channels")).text()]) {
    expect(body).not.toContain("sEcReTtOkEn");
  }
  const renamed = await ws.admin.put(`/api/v1/alert_channels/${slack.id}`, { alert_channel: { name: "renamed", url: "*************" } });
  expect(renamed.status(), await renamed.text()).toBe(200);
  expect(await renamed.text()).not.toContain("sEcReTtOkEn");

  const test1 = await ws.admin.post(`/api/v1/alert_channels/${slack.id}/test`);
  expect(test1.status(), await test1.text()).toBe(200);
  expect((await test1.json()).data).toMatchObject({ channel_id: Number(slack.id), status: "sent", error: null, subject: '[Test] Datasync alert channel "renamed"' });
  expect(received.find((r) => r.path === secretPath)?.body.text).toContain("[Test]");

  const down = await channel(ws.admin, { channel_type: "webhook", url: `${receiverUrl}/down` });
  const test2 = await (await ws.admin.post(`/api/v1/alert_channels/${down.id}/test`)).json();
  expect(test2.data).toMatchObject({ status: "failed", error: expect.stringContaining("HTTP 503") });
  const audit = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=alert_channel&resource_id=${slack.id}`)).json();
  expect(JSON.stringify(audit)).not.toContain("sEcReTtOkEn");
  expect(audit.data.map((a: { attributes: { action: string } }) => a.attributes.action)).toEqual(expect.arrayContaining(["create", "update", "test"]));
});

test("real runs: a rejected-rows alert fires once over two bad runs and resolves once the rows go through", async () => {
  test.setTimeout(240_000);
  await ensureTestDatabase();
  const { syncId, tables: created } = await rejectingSync(ws.admin, 20, 3);
  tables.push(...created);
  // The admin's own address: a member's, so it gets the alert without confirming.
  const email = await channel(ws.admin, { channel_type: "email", recipients: [ADMIN.email] });
  const hook = await channel(ws.admin, { channel_type: "webhook", url: `${receiverUrl}/rejects` });
  const res = await ws.admin.post("/api/v1/alert_rules", {
    alert_rule: { name: "Rejects", sync_id: syncId, condition: "rejected_rows_percent", threshold: 10, channel_ids: [Number(email.id), Number(hook.id)] },
  });
  expect(res.status(), await res.text()).toBe(201);
  const ruleId = (await res.json()).data.id;

  type Event = { attributes: { kind: string; sync_run_id: number; message: string; deliveries: { channel_type: string; status: string }[] } };
  const settled = async (count: number): Promise<Event[]> => {
    let events: Event[] = [];
    await expect
      .poll(
        async () => {
          events = (await (await ws.admin.get(`/api/v1/alert_events?alert_rule_id=${ruleId}`)).json()).data;
          return events.length === count && events.every((e) => e.attributes.deliveries.every((d) => d.status !== "pending"));
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    return events.reverse();
  };

  // 3 of 20 rejected (15 %): firing. The email goes to the log (no SMTP_URL on this server), listed as logged.
  const first = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, first)).toMatchObject({ status: "success", failed_rows: 3 });
  const [firing] = await settled(1);
  expect(firing.attributes).toMatchObject({ kind: "firing", sync_run_id: Number(first) });
  expect(firing.attributes.message).toContain("3 rejected");
  expect(firing.attributes.deliveries.map((d) => [d.channel_type, d.status]).sort()).toEqual([
    ["email", "logged"],
    ["webhook", "sent"],
  ]);
  expect((await (await ws.admin.get(`/api/v1/alert_rules/${ruleId}`)).json()).data.attributes).toMatchObject({ status: "firing", firing: [{ sync_id: syncId }] });

  // The same rows refused again: still firing, no second message.
  const second = await trigger(ws.admin, syncId);
  await waitForRun(ws.admin, syncId, second);
  // The destination now takes them: resolved, once.
  await sql(`ALTER TABLE ${created[1]} ALTER COLUMN email DROP NOT NULL`);
  const third = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, third)).toMatchObject({ status: "success", failed_rows: 0 });
  const events = await settled(2);
  expect(events.map((e) => [e.attributes.kind, e.attributes.sync_run_id])).toEqual([
    ["firing", Number(first)],
    ["resolved", Number(third)],
  ]);
  expect(received.filter((r) => r.path === "/rejects").map((r) => r.body.event)).toEqual(["alert.firing", "alert.resolved"]);
});
