// Webhook subscriptions over real HTTP: CRUD with the secret shown once and masked afterwards,
// roles, another workspace's subscription as a 404, the network policy on save, validation, the
// audit log, and a real delivery (ping and redelivery) to a receiver this spec runs on 127.0.0.1,
// its signature checked with the recipe of docs/webhooks.md.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors, ISO_TIME, memberWithRole, newWorkspace, type TestMember, type TestWorkspace } from "../support/api";

let ws: TestWorkspace;
let viewer: TestMember;
let server: Server;
let receiver: string;
const hits: { headers: IncomingHttpHeaders; body: string }[] = [];

test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
  viewer = await memberWithRole(request, ws, "Viewer");
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const create = (body: Record<string, unknown>) =>
  ws.admin.post("/api/v1/webhook_subscriptions", { webhook_subscription: { url: receiver, events: ["sync_run.failed"], ...body } });

async function created(body: Record<string, unknown> = {}) {
  const res = await create(body);
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data as { id: string; attributes: Record<string, unknown> & { secret: string } };
}

/** The receiver's check, as docs/webhooks.md shows it. */
function signed(header: string, body: string, secret: string): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]));
  const expected = createHmac("sha256", secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
}

test("create shows the signing secret once; list, show and update mask it; rotate makes a new one", async () => {
  const sub = await created({ events: ["sync_run.started", "sync_run.succeeded"] });
  expect(sub.attributes).toMatchObject({ url: receiver, events: ["sync_run.started", "sync_run.succeeded"], sync_ids: null, enabled: true, disabled_reason: null, workspace_id: ws.id });
  expect(sub.attributes.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
  expect(sub.attributes.created_at).toMatch(ISO_TIME);
  const masked = `whsec_…${sub.attributes.secret.slice(-4)}`;

  const list = await ws.admin.get("/api/v1/webhook_subscriptions");
  expect(list.status()).toBe(200);
  const listText = await list.text();
  expect(listText).not.toContain(sub.attributes.secret);
  const listed = JSON.parse(listText);
  expect(Object.keys(listed).sort()).toEqual(["data", "links", "meta"]);
  expect(listed.data.find((s: { id: string }) => s.id === sub.id).attributes.secret).toBe(masked);
  const shown = await (await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`)).json();
  expect(shown.data.attributes.secret).toBe(masked);

  const put = await ws.admin.put(`/api/v1/webhook_subscriptions/${sub.id}`, { webhook_subscription: { events: ["sync_run.needs_approval"], enabled: false } });
  expect(put.status(), await put.text()).toBe(200);
  const updated = (await put.json()).data.attributes;
  expect(updated).toMatchObject({ events: ["sync_run.needs_approval"], enabled: false, url: receiver, secret: masked });

  const rotated = await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/rotate_secret`);
  expect(rotated.status(), await rotated.text()).toBe(200);
  const fresh = (await rotated.json()).data.attributes.secret as string;
  expect(fresh).toMatch(/^whsec_[0-9a-f]{64}$/);
  expect(fresh).not.toBe(sub.attributes.secret);
  expect((await (await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`)).json()).data.attributes.secret).toBe(`whsec_…${fresh.slice(-4)}`);

  expect((await ws.admin.delete(`/api/v1/webhook_subscriptions/${sub.id}`)).status()).toBe(204);
  await expectError(await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`), 404, "not_found");

  // Each change left an audit entry.
  const audit = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=webhook_subscription&resource_id=${sub.id}&per_page=100`)).json();
  expect(audit.data.map((e: { attributes: { action: string } }) => e.attributes.action).sort()).toEqual(["create", "delete", "rotate", "update"]);
  expect(JSON.stringify(audit)).not.toContain(sub.attributes.secret);
});

test("a Viewer reads webhooks (secret masked) but may not create, change, test, rotate or delete them", async () => {
  const sub = await created();
  const list = await viewer.api.get("/api/v1/webhook_subscriptions");
  expect(list.status()).toBe(200);
  expect(await list.text()).not.toContain(sub.attributes.secret);
  await expectError(
    await viewer.api.post("/api/v1/webhook_subscriptions", { webhook_subscription: { url: receiver, events: ["sync_run.failed"] } }),
    403,
    "forbidden",
  );
  await expectError(await viewer.api.put(`/api/v1/webhook_subscriptions/${sub.id}`, { webhook_subscription: { enabled: false } }), 403, "forbidden");
  await expectError(await viewer.api.post(`/api/v1/webhook_subscriptions/${sub.id}/rotate_secret`), 403, "forbidden");
  await expectError(await viewer.api.post(`/api/v1/webhook_subscriptions/${sub.id}/test`), 403, "forbidden");
  await expectError(await viewer.api.delete(`/api/v1/webhook_subscriptions/${sub.id}`), 403, "forbidden");
  expect((await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`)).status()).toBe(200);
});

test("another workspace's subscription and its deliveries are 404, like ids that do not exist", async ({ request }) => {
  const sub = await created();
  const ping = await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/test`);
  expect(ping.status(), await ping.text()).toBe(201);
  const deliveryId = (await ping.json()).data.id;
  const other = await newWorkspace(request);
  for (const api of [other.admin]) {
    await expectError(await api.get(`/api/v1/webhook_subscriptions/${sub.id}`), 404, "not_found");
    await expectError(await api.put(`/api/v1/webhook_subscriptions/${sub.id}`, { webhook_subscription: { enabled: false } }), 404, "not_found");
    await expectError(await api.delete(`/api/v1/webhook_subscriptions/${sub.id}`), 404, "not_found");
    await expectError(await api.post(`/api/v1/webhook_subscriptions/${sub.id}/rotate_secret`), 404, "not_found");
    await expectError(await api.post(`/api/v1/webhook_subscriptions/${sub.id}/test`), 404, "not_found");
    await expectError(await api.get(`/api/v1/webhook_subscriptions/${sub.id}/deliveries`), 404, "not_found");
    await expectError(await api.post(`/api/v1/webhook_subscriptions/${sub.id}/deliveries/${deliveryId}/redeliver`), 404, "not_found");
    const list = await (await api.get("/api/v1/webhook_subscriptions")).json();
    expect(list.data.map((s: { id: string }) => s.id)).not.toContain(sub.id);
  }
  // A delivery of another subscription, even in the same workspace, is not this one's.
  const mine = await created();
  await expectError(await ws.admin.post(`/api/v1/webhook_subscriptions/${mine.id}/deliveries/${deliveryId}/redeliver`), 404, "not_found");
  expect((await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`)).status()).toBe(200);
});

test("the outbound network policy refuses metadata addresses (and non-http URLs) when saved", async () => {
  for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/", "file:///etc/passwd"]) {
    const body = await expectError(await create({ url }), 422, "validation_failed");
    expect(fieldErrors(body).map((e) => e.path), url).toEqual(["webhook_subscription.url"]);
  }
  const sub = await created();
  const put = await expectError(
    await ws.admin.put(`/api/v1/webhook_subscriptions/${sub.id}`, { webhook_subscription: { url: "http://169.254.169.254/x" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(put)[0].message).toMatch(/metadata/);
  expect((await (await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}`)).json()).data.attributes.url).toBe(receiver);
});

test("validation: url and events required, known events once each, sync ids of this workspace", async () => {
  const missing = await expectError(await ws.admin.post("/api/v1/webhook_subscriptions", { webhook_subscription: {} }), 422, "validation_failed");
  expect(fieldErrors(missing).map((e) => e.path).sort()).toEqual(["webhook_subscription.events", "webhook_subscription.url"]);
  await expectError(await ws.admin.post("/api/v1/webhook_subscriptions", {}), 422, "validation_failed");
  const unknown = await expectError(await create({ events: ["sync_run.exploded"] }), 422, "validation_failed");
  expect(fieldErrors(unknown)[0].path).toBe("webhook_subscription.events.0");
  await expectError(await create({ events: [] }), 422, "validation_failed");
  await expectError(await create({ events: ["sync_run.failed", "sync_run.failed"] }), 422, "validation_failed");
  const empty = await expectError(await create({ sync_ids: [] }), 422, "validation_failed");
  expect(fieldErrors(empty)[0].message).toMatch(/send null for every sync/);
  const foreign = await expectError(await create({ sync_ids: [1_999_999_999] }), 422, "validation_failed");
  expect(fieldErrors(foreign)).toEqual([{ path: "webhook_subscription.sync_ids", message: "names syncs that are not in this workspace: 1999999999" }]);
  await expectError(await ws.admin.get("/api/v1/webhook_subscriptions/abc"), 400, "bad_request");
});

test("the test button's ping reaches the endpoint signed; the delivery log shows it; redeliver sends the same event", async () => {
  const sub = await created();
  const ping = await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/test`);
  expect(ping.status(), await ping.text()).toBe(201);
  const delivery = (await ping.json()).data;
  expect(delivery.attributes).toMatchObject({ subscription_id: Number(sub.id), event_type: "ping", status: "pending", attempts: 0, attempt_log: [] });

  const log = async () => (await (await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}/deliveries`)).json()).data;
  await expect.poll(async () => (await log())[0]?.attributes.status, { timeout: 20_000 }).toBe("succeeded");
  const [done] = await log();
  expect(done.attributes).toMatchObject({ attempts: 1, last_status_code: 204, last_error: null, next_attempt_at: null });
  expect(done.attributes.attempt_log).toEqual([
    expect.objectContaining({ attempt: 1, status_code: 204, error: null, next_retry_at: null, created_at: expect.stringMatching(ISO_TIME) }),
  ]);
  const hit = hits.find((h) => h.headers["datasync-event-id"] === delivery.attributes.event_id);
  expect(hit).toBeDefined();
  expect(signed(String(hit!.headers["datasync-signature"]), hit!.body, sub.attributes.secret)).toBe(true);
  expect(signed(String(hit!.headers["datasync-signature"]), hit!.body, "whsec_not_it")).toBe(false);
  expect(JSON.parse(hit!.body)).toMatchObject({ id: delivery.attributes.event_id, type: "ping", workspace_id: ws.id, data: { subscription_id: Number(sub.id) } });

  const again = await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/deliveries/${delivery.id}/redeliver`);
  expect(again.status(), await again.text()).toBe(201);
  const redelivery = (await again.json()).data;
  expect(redelivery.attributes).toMatchObject({ event_id: delivery.attributes.event_id, redelivery_of: Number(delivery.id), status: "pending" });
  await expect.poll(async () => hits.filter((h) => h.headers["datasync-event-id"] === delivery.attributes.event_id).length, { timeout: 20_000 }).toBe(2);
  const audit = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=webhook_subscription&resource_id=${sub.id}`)).json();
  expect(audit.data.map((e: { attributes: { action: string } }) => e.attributes.action)).toEqual(expect.arrayContaining(["test", "redeliver"]));
});

test("hammering redeliver is refused with 429 and Retry-After past the subscription's limit; the receiver gets at most that many", async () => {
  const sub = await created();
  const ping = await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/test`);
  expect(ping.status(), await ping.text()).toBe(201);
  const delivery = (await ping.json()).data;
  const eventHits = () => hits.filter((h) => h.headers["datasync-event-id"] === delivery.attributes.event_id).length;
  await expect.poll(eventHits, { timeout: 20_000 }).toBe(1);

  // WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION: 10 by default (the e2e server keeps the default).
  const LIMIT = 10;
  const answers = await Promise.all(Array.from({ length: 30 }, () => ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/deliveries/${delivery.id}/redeliver`)));
  const statuses = answers.map((a) => a.status());
  expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(30 - LIMIT);
  const refused = answers.find((a) => a.status() === 429)!;
  const body = await expectError(refused, 429, "rate_limited");
  expect(body.message).toMatch(/^Too many redeliveries: at most 10 redeliveries of a subscription per \d+ seconds \(WEBHOOK_REDELIVERY_WINDOW_SECONDS\)\. Try again in \d+ seconds?\.$/);
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);

  // Every accepted redelivery is delivered, and nothing more: the log has the ping and LIMIT redeliveries, all done.
  const log = async () => (await (await ws.admin.get(`/api/v1/webhook_subscriptions/${sub.id}/deliveries?per_page=100`)).json()).data as { attributes: { status: string } }[];
  await expect.poll(async () => (await log()).filter((d) => d.attributes.status === "succeeded").length, { timeout: 60_000 }).toBe(LIMIT + 1);
  expect(await log()).toHaveLength(LIMIT + 1);
  expect(eventHits()).toBe(LIMIT + 1);
  // Still refused afterwards, within the window.
  await expectError(await ws.admin.post(`/api/v1/webhook_subscriptions/${sub.id}/deliveries/${delivery.id}/redeliver`), 429, "rate_limited");
});
