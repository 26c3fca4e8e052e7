// Run lifecycle webhooks end to end on a real database, a real worker loop and a real HTTP receiver
// on 127.0.0.1: events from a run, signatures checked the way docs/webhooks.md tells receivers to,
// retries with backoff logged attempt by attempt, 410 disabling, redelivery, giving up, and the
// network policy applied again at send time.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startDatasyncEngine } from "@/lib/services/run-events";
import { approveRun, cancelRun, stopEngine, triggerSync } from "@/lib/engine";
import { retryDelaySeconds } from "@/lib/engine/webhooks/deliver";
import { verifySignature } from "@/lib/engine/webhooks/signature";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, sql, tableStream, waitFor } from "@/lib/engine/test-support";
import { Conflict, RateLimited, ValidationFailed } from "@/lib/errors";
import { MAX_WEBHOOK_SUBSCRIPTIONS } from "@/lib/validation/webhook-subscriptions";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { newMember } from "@/tests/support/auth-fixtures";
import type { AuthContext } from "../accounts/auth-context";
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  testWebhookSubscription,
  updateWebhookSubscription,
} from "./webhook-subscriptions";

useTestDatabase();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base: string;
const received: Received[] = [];
/** Per path: statuses to answer, in order (200 once they run out). */
const script = new Map<string, number[]>();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };
let auth: AuthContext;
const saved: Record<string, string | undefined> = {};
const PAGE = { page: 1, perPage: 25, skip: 0, take: 25 };

function setEnv(name: string, value: string | undefined): void {
  if (!(name in saved)) saved[name] = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

beforeAll(async () => {
  setEnv("OUTBOUND_ALLOW_PRIVATE", "127.0.0.1,::1");
  setEnv("WEBHOOK_RETRY_BASE_SECONDS", "0.5");
  setEnv("WEBHOOK_RETRY_MAX_HOURS", "1");
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const status = script.get(path)?.shift() ?? 200;
      const headers = { "content-type": "text/plain", ...(status >= 300 && status < 400 ? { location: "/redirected" } : {}) };
      res.writeHead(status, headers).end(status < 300 ? "ok" : `no (${status})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  source = await createScratchDatabase("ds_src");
  destination = await createScratchDatabase("ds_dst");
  await createPeople(source.url, 20);
  await createPeople(destination.url, 0);
  await startDatasyncEngine({ worker: true, scheduler: false, concurrency: 1 });
}, 60_000);

afterAll(async () => {
  await stopEngine();
  await new Promise((resolve) => server?.close(resolve));
  await source?.drop();
  await destination?.drop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const at = (path: string) => received.filter((r) => r.path === path);

async function deliveriesOf(subscriptionId: number) {
  return (await listWebhookDeliveries(auth, subscriptionId, PAGE)).rows;
}

/** Waits until the subscription's deliveries all settled (none pending) and there are `count`. */
function settled(subscriptionId: number, count: number) {
  return waitFor(
    async () => {
      const rows = await deliveriesOf(subscriptionId);
      return rows.length >= count && rows.every((d) => d.status !== "pending") ? rows : undefined;
    },
    30_000,
    `${count} settled deliveries of subscription ${subscriptionId}`,
  );
}

describe("run lifecycle webhooks", () => {
  it("a run sends signed started and succeeded events with its counters; a subscription for another sync gets nothing", async () => {
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people")) },
    });
    ({ auth } = await newMember("Admin", f.workspaceId));
    const all = await createWebhookSubscription(auth, {
      url: `${base}/all`,
      events: ["sync_run.started", "sync_run.succeeded", "sync_run.failed"],
      sync_ids: [f.syncId],
      enabled: true,
    });
    const other = await createFixture({ sourceUrl: source.url, workspaceId: f.workspaceId, destinationId: f.destinationId, destination: { connectorName: "Postgresql", config: {}, catalog: catalogOf(tableStream("people")) } });
    const elsewhere = await createWebhookSubscription(auth, { url: `${base}/elsewhere`, events: ["sync_run.succeeded"], sync_ids: [other.syncId], enabled: true });

    const run = await triggerSync(f.workspaceId, f.syncId);
    await waitFor(async () => ((await reloadRun(run.id)).status === "success" ? true : undefined), 30_000, "the run");
    const rows = await settled(all.row.id, 2);
    const ended = await reloadRun(run.id);

    const bodies = at("/all").map((r) => {
      // The recipe of docs/webhooks.md: HMAC-SHA256 of `${t}.${raw body}` with the secret.
      expect(verifySignature(String(r.headers["datasync-signature"]), r.body, all.secret, Math.floor(Date.now() / 1000))).toBe(true);
      expect(verifySignature(String(r.headers["datasync-signature"]), r.body, "whsec_wrong", Math.floor(Date.now() / 1000))).toBe(false);
      const body = JSON.parse(r.body);
      expect(r.headers["datasync-event-id"]).toBe(body.id);
      expect(r.headers["datasync-event-type"]).toBe(body.type);
      expect(r.headers["content-type"]).toBe("application/json");
      return body;
    });
    // Deliveries run in parallel, so arrival order is not promised: created_at orders events.
    bodies.sort((x, y) => x.created_at.localeCompare(y.created_at));
    expect(bodies.map((b) => b.type)).toEqual(["sync_run.started", "sync_run.succeeded"]);
    expect(bodies[0].data.status).toBe("started");
    const done = bodies[1];
    expect(done).toMatchObject({
      workspace_id: f.workspaceId,
      data: {
        sync_id: f.syncId,
        sync_run_id: run.id,
        status: "success",
        outcome: "succeeded",
        total_query_rows: 20,
        successful_rows: ended.successfulRows,
        failed_rows: 0,
        total_rows: ended.totalRows,
      },
    });
    expect(ended.successfulRows).toBe(20);
    expect(done.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(2);
    expect(rows.every((d) => d.status === "succeeded" && d.attempts === 1 && d.attemptLog[0].statusCode === 200)).toBe(true);
    expect(at("/elsewhere")).toHaveLength(0);
    expect(await deliveriesOf(elsewhere.row.id)).toHaveLength(0);
  }, 60_000);

  it("a run held for approval sends needs_approval; canceled it sends failed; approved it goes on without a second started", async () => {
    const f = await createFixture({
      sourceUrl: source.url,
      workspaceId: auth.workspaceId,
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people")) },
      sync: { guard: { max_change_percent: 10 } },
    });
    const sub = await createWebhookSubscription(auth, {
      url: `${base}/guarded`,
      events: ["sync_run.started", "sync_run.needs_approval", "sync_run.succeeded", "sync_run.failed"],
      sync_ids: [f.syncId],
      enabled: true,
    });
    const ended = async (runId: number, status: string) =>
      waitFor(async () => ((await reloadRun(runId)).status === status ? true : undefined), 30_000, `run ${runId} ${status}`);
    const eventsOf = (runId: number) =>
      at("/guarded")
        .map((r) => JSON.parse(r.body))
        .filter((b) => b.data.sync_run_id === runId)
        .sort((x, y) => x.created_at.localeCompare(y.created_at))
        .map((b) => `${b.type}:${b.data.status}:${b.data.outcome}`);

    const first = await triggerSync(f.workspaceId, f.syncId);
    await ended(first.id, "success");
    await sql(source.url, "UPDATE people SET score = score + 1 WHERE id <= 5");
    const held = await triggerSync(f.workspaceId, f.syncId);
    await ended(held.id, "needs_approval");
    await cancelRun(f.workspaceId, f.syncId, held.id, "Ada");
    const again = await triggerSync(f.workspaceId, f.syncId);
    await ended(again.id, "needs_approval");
    await approveRun(f.workspaceId, f.syncId, again.id, "Ada");
    await ended(again.id, "success");
    await settled(sub.row.id, 8);

    expect(eventsOf(first.id)).toEqual(["sync_run.started:started:running", "sync_run.succeeded:success:succeeded"]);
    expect(eventsOf(held.id)).toEqual(["sync_run.started:started:running", "sync_run.needs_approval:needs_approval:needs_approval", "sync_run.failed:failed:canceled"]);
    expect(eventsOf(again.id)).toEqual(["sync_run.started:started:running", "sync_run.needs_approval:needs_approval:needs_approval", "sync_run.succeeded:success:succeeded"]);
  }, 90_000);

  it("retries a refused delivery with growing waits, logs every attempt, and succeeds when the receiver does", async () => {
    const sub = await createWebhookSubscription(auth, { url: `${base}/flaky`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    script.set("/flaky", [500, 302, 200]);
    const ping = await testWebhookSubscription(auth, sub.row.id);
    const [delivery] = await settled(sub.row.id, 1);
    expect(delivery.id).toBe(ping.id);
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts).toBe(3);
    const log = delivery.attemptLog;
    expect(log.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 302], [3, 200]]);
    expect(log[0].error).toContain("HTTP 500");
    // A redirect is an answer that is not a 2xx, not a place to send the event to.
    expect(at("/redirected")).toHaveLength(0);
    expect(log[2].error).toBeNull();
    expect(log[2].nextRetryAt).toBeNull();
    // Each retry waited at least the backoff its attempt announced, and the announced waits double.
    for (const i of [0, 1]) {
      expect(log[i].nextRetryAt).not.toBeNull();
      expect(log[i + 1].createdAt.getTime()).toBeGreaterThanOrEqual(log[i].nextRetryAt!.getTime());
    }
    expect(retryDelaySeconds(1)).toBe(0.5);
    expect(retryDelaySeconds(2)).toBe(1);
    expect(retryDelaySeconds(3, 60)).toBe(60);
    // Every attempt carried the same event, each signed at its own time.
    const hits = at("/flaky");
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers["datasync-event-id"]))).toEqual(new Set([delivery.eventId]));
    for (const h of hits) expect(verifySignature(String(h.headers["datasync-signature"]), h.body, sub.secret, Math.floor(Date.now() / 1000))).toBe(true);
    expect(JSON.parse(hits[0].body)).toMatchObject({ type: "ping", workspace_id: auth.workspaceId, data: { subscription_id: sub.row.id } });
  }, 60_000);

  it("gives up when the next attempt would fall past WEBHOOK_RETRY_MAX_HOURS", async () => {
    setEnv("WEBHOOK_RETRY_MAX_HOURS", String(0.4 / 3600));
    try {
      const sub = await createWebhookSubscription(auth, { url: `${base}/down`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
      script.set("/down", [500, 500, 500, 500, 500]);
      await testWebhookSubscription(auth, sub.row.id);
      const [delivery] = await settled(sub.row.id, 1);
      expect(delivery.status).toBe("failed");
      expect(delivery.lastError).toMatch(/given up after 1 attempts/);
      expect(delivery.attemptLog).toHaveLength(1);
      expect(delivery.attemptLog[0].nextRetryAt).toBeNull();
    } finally {
      setEnv("WEBHOOK_RETRY_MAX_HOURS", "1");
    }
  }, 60_000);

  it("410 Gone disables the subscription; a redelivery sends the same event again anyway", async () => {
    const sub = await createWebhookSubscription(auth, { url: `${base}/gone`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    script.set("/gone", [410]);
    await testWebhookSubscription(auth, sub.row.id);
    const [first] = await settled(sub.row.id, 1);
    expect(first.status).toBe("failed");
    expect(first.attempts).toBe(1);
    const disabled = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: sub.row.id } });
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabledReason).toContain("410");

    const again = await redeliverWebhookDelivery(auth, sub.row.id, first.id);
    expect(again.redeliveryOf).toBe(first.id);
    expect(again.eventId).toBe(first.eventId);
    const rows = await settled(sub.row.id, 2);
    expect(rows.find((d) => d.id === again.id)?.status).toBe("succeeded");
    const hits = at("/gone");
    expect(hits.map((h) => h.headers["datasync-event-id"])).toEqual([first.eventId, first.eventId]);
    expect(hits[1].body).toBe(hits[0].body);

    // Enabling again clears the reason.
    const enabled = await updateWebhookSubscription(auth, sub.row.id, { enabled: true });
    expect(enabled.disabledReason).toBeNull();
  }, 60_000);

  it("redeliveries are limited per subscription and per workspace, with Retry-After and the limit named", async () => {
    setEnv("WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION", "2");
    setEnv("WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE", "3");
    // Earlier tests' redeliveries count against the workspace: start from none.
    await prisma().$executeRaw`DELETE FROM login_throttles WHERE key LIKE 'webhook-redeliver%'`;
    try {
      const one = await createWebhookSubscription(auth, { url: `${base}/limited-1`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
      const two = await createWebhookSubscription(auth, { url: `${base}/limited-2`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
      const pingOne = await testWebhookSubscription(auth, one.row.id);
      const pingTwo = await testWebhookSubscription(auth, two.row.id);
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => redeliverWebhookDelivery(auth, one.row.id, pingOne.id)));
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(2);
      const refused = outcomes.find((o) => o.status === "rejected")!.reason as RateLimited;
      expect(refused).toBeInstanceOf(RateLimited);
      expect(refused.message).toMatch(/^Too many redeliveries: at most 2 redeliveries of a subscription per 600 seconds/);
      expect(Number(refused.headers?.["Retry-After"])).toBeGreaterThan(0);
      // The other subscription has its own 2, but the workspace only 1 left of its 3.
      await redeliverWebhookDelivery(auth, two.row.id, pingTwo.id);
      const workspace = await redeliverWebhookDelivery(auth, two.row.id, pingTwo.id).catch((err: unknown) => err);
      expect(workspace).toBeInstanceOf(RateLimited);
      expect((workspace as RateLimited).message).toMatch(/at most 3 redeliveries in a workspace/);
      // Only the accepted ones were made.
      expect(await prisma().webhookDelivery.count({ where: { subscriptionId: { in: [one.row.id, two.row.id] }, redeliveryOf: { not: null } } })).toBe(3);
    } finally {
      setEnv("WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION", undefined);
      setEnv("WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE", undefined);
    }
  }, 60_000);

  it("refuses metadata and (by policy) private URLs when saved, and checks the policy again at send time", async () => {
    for (const url of ["http://169.254.169.254/latest/meta-data", "http://metadata.google.internal/x", "ftp://example.com/x"]) {
      await expect(createWebhookSubscription(auth, { url, events: ["sync_run.failed"], sync_ids: null, enabled: true })).rejects.toBeInstanceOf(
        ValidationFailed,
      );
    }
    // Allowed when saved; the operator then narrows the policy (or the name moves elsewhere): the
    // attempt is refused before any byte leaves, and not retried.
    // A name (localhost), so the send-time check is the one made on the addresses the connection resolves.
    const byName = base.replace("127.0.0.1", "localhost");
    const sub = await createWebhookSubscription(auth, { url: `${byName}/late`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    setEnv("OUTBOUND_ALLOW_PRIVATE", "");
    try {
      await expect(createWebhookSubscription(auth, { url: `${base}/now`, events: ["sync_run.failed"], sync_ids: null, enabled: true })).rejects.toThrow(
        /private, loopback or link-local/,
      );
      await testWebhookSubscription(auth, sub.row.id);
      const [delivery] = await settled(sub.row.id, 1);
      expect(delivery.status).toBe("failed");
      expect(delivery.attemptLog).toHaveLength(1);
      expect(delivery.attemptLog[0].statusCode).toBeNull();
      expect(delivery.attemptLog[0].error).toMatch(/not allowed/);
      expect(at("/late")).toHaveLength(0);
    } finally {
      setEnv("OUTBOUND_ALLOW_PRIVATE", "127.0.0.1,::1");
    }
  }, 60_000);

  it("another workspace's subscription and deliveries are not found; sync ids must be the workspace's", async () => {
    const mine = await createWebhookSubscription(auth, { url: `${base}/mine`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    const stranger = (await newMember("Admin")).auth;
    await expect(testWebhookSubscription(stranger, mine.row.id)).rejects.toThrow(/was not found/);
    await expect(listWebhookDeliveries(stranger, mine.row.id, PAGE)).rejects.toThrow(/was not found/);
    const strangerSub = await createWebhookSubscription(stranger, { url: `${base}/theirs`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    await expect(updateWebhookSubscription(auth, strangerSub.row.id, { enabled: false })).rejects.toThrow(/was not found/);
    const syncOfMine = (await prisma().sync.findFirstOrThrow({ where: { workspaceId: auth.workspaceId } })).id;
    await expect(
      createWebhookSubscription(stranger, { url: `${base}/x`, events: ["sync_run.failed"], sync_ids: [syncOfMine], enabled: true }),
    ).rejects.toThrow(/not in this workspace/);
  });

  it("a workspace has at most MAX_WEBHOOK_SUBSCRIPTIONS subscriptions, even when they are created all at once", async () => {
    const flooder = (await newMember("Member")).auth;
    const create = (i: number) => createWebhookSubscription(flooder, { url: `${base}/flood/${i}`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    const results = await Promise.allSettled(Array.from({ length: MAX_WEBHOOK_SUBSCRIPTIONS + 10 }, (_, i) => create(i)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_WEBHOOK_SUBSCRIPTIONS);
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    expect(refused).toHaveLength(10);
    for (const err of refused) expect(err).toBeInstanceOf(Conflict);
    expect(await prisma().webhookSubscription.count({ where: { workspaceId: flooder.workspaceId } })).toBe(MAX_WEBHOOK_SUBSCRIPTIONS);
    // Another workspace is not affected, and deleting one makes room again.
    await createWebhookSubscription(auth, { url: `${base}/room`, events: ["sync_run.failed"], sync_ids: null, enabled: true });
    const first = await prisma().webhookSubscription.findFirstOrThrow({ where: { workspaceId: flooder.workspaceId } });
    await deleteWebhookSubscription(flooder, first.id);
    await create(99);
  });
});
