// Alerts end to end on real infrastructure: runs end through run-store.setRunStatus (the engine's one
// place), the alert queue (pg-boss) evaluates and delivers on a worker, mail goes to a real SMTP server
// and Slack / webhook messages to a real HTTP receiver, all on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { pgPool, prisma } from "@/lib/db/client";
import { stopBoss } from "@/lib/engine/queue";
import { setRunStatus } from "@/lib/engine/run-store";
import { Conflict, NotFound, RateLimited, ValidationFailed } from "@/lib/errors";
import { MAX_ALERT_CHANNELS, MAX_ALERT_RULES } from "@/lib/validation/alerts";
import { serializeAlertChannel } from "@/lib/serializers/alerts";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import type { AuthContext } from "../../accounts/auth-context";
import { createAlertChannel, getAlertChannel, updateAlertChannel } from "./channels";
import { evaluateRunEnd, sweepAlerts } from "./evaluate";
import { CHANNEL_TESTS_PER_MINUTE, listAlertEvents, testAlertChannel } from "./events";
import { queueAlertSweep, startAlertWork, type AlertWork } from "./queue";
import { registerRunSubscribers } from "../../run-events";
import { createAlertRule, getAlertRule } from "./rules";

useTestDatabase();

interface Received {
  path: string;
  body: Record<string, unknown>;
}

/** A local HTTP receiver: keeps every POST; answers `status` (per path, default 200). */
async function startReceiver(): Promise<{ url: string; got: Received[]; status: Map<string, number>; close(): Promise<void> }> {
  const got: Received[] = [];
  const status = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      got.push({ path, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown> });
      res.writeHead(status.get(path) ?? 200, { "content-type": "text/plain" }).end(status.has(path) ? "receiver refused" : "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, got, status, close: () => new Promise((r) => server.close(() => r())) };
}

/** A header as written by nodemailer, MIME encoded-words (=?UTF-8?Q?...?=) decoded. */
const decodeHeader = (value: string): string =>
  value
    .replace(/\?=\s+=\?UTF-8\?Q\?/gi, "")
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, q: string) =>
      Buffer.from(q.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8"),
    );

let smtp: SmtpCapture;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let work: AlertWork;
let auth: AuthContext;
let workspaceId: number;
/** The workspace's Admin's address: a member's, so alert mails go to it without a confirmation. */
let adminEmail: string;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  receiver = await startReceiver();
  process.env.SMTP_URL = smtp.url;
  const admin = await newMember("Admin");
  auth = admin.auth;
  workspaceId = admin.workspaceId;
  adminEmail = admin.user.email;
  // The alert subscriber on the run event bus, as at process start.
  registerRunSubscribers();
  work = await startAlertWork();
});

afterAll(async () => {
  await work?.stop();
  await stopBoss();
  await smtp?.close();
  await receiver?.close();
  delete process.env.SMTP_URL;
});

afterEach(() => {
  process.env.SMTP_URL = smtp.url;
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

/** Ends a new general run of the sync as the engine does, through setRunStatus (which queues the evaluation). */
async function endRun(syncId: number, to: "success" | "failed", counts: { total?: number; failed?: number; error?: string | null } = {}) {
  const run = await prisma().syncRun.create({
    data: {
      workspaceId,
      syncId,
      status: "in_progress",
      syncRunType: "general",
      timings: {},
      startedAt: new Date(),
      totalRows: counts.total ?? 10,
      successfulRows: (counts.total ?? 10) - (counts.failed ?? 0),
      failedRows: counts.failed ?? 0,
    },
  });
  expect(await setRunStatus(pgPool(), run.id, to, { error: to === "failed" ? (counts.error ?? "The source refused the query.") : null, finished: true })).toBe(true);
  return run.id;
}

/** Waits until the alert queue evaluated `runId` for `ruleId` (its state names the run). */
async function evaluated(ruleId: number, runId: number): Promise<void> {
  await expect
    .poll(async () => (await prisma().alertState.findFirst({ where: { alertRuleId: ruleId } }))?.lastRunId ?? null, { timeout: 20_000 })
    .toBe(runId);
}

/** Waits until every delivery of the rule's events left pending; returns the events oldest first. */
async function settledEvents(ruleId: number) {
  let events: Awaited<ReturnType<typeof listAlertEvents>>["rows"] = [];
  await expect
    .poll(
      async () => {
        events = (await listAlertEvents(workspaceId, { alert_rule_id: ruleId }, { page: 1, perPage: 100, skip: 0, take: 100 })).rows;
        return events.every((e) => JSON.stringify(e.deliveries).includes('"pending"') === false);
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return [...events].reverse();
}

describe("alerts over a sequence of runs", () => {
  it("fires once when a sync starts failing and once when it recovers: email, Slack and webhook", async () => {
    const { sync } = await bareSync(workspaceId);
    await prisma().sync.update({ where: { id: sync.id }, data: { name: "Orders to CRM" } });
    const email = await createAlertChannel(auth, { name: "ops mail", channel_type: "email", recipients: [adminEmail.toUpperCase()] });
    const slack = await createAlertChannel(auth, { name: "slack", channel_type: "slack", url: `${receiver.url}/slack` });
    const hook = await createAlertChannel(auth, { name: "hook", channel_type: "webhook", url: `${receiver.url}/hook` });
    const rule = await createAlertRule(auth, { name: "Sync failing", sync_id: sync.id, condition: "run_failed", channel_ids: [email.id, slack.id, hook.id] });

    const outcomes = ["failed", "failed", "failed", "success"] as const;
    for (const outcome of outcomes) await evaluated(rule.id, await endRun(sync.id, outcome));

    const events = await settledEvents(rule.id);
    expect(events.map((e) => e.kind)).toEqual(["firing", "resolved"]);
    for (const e of events) expect(e.deliveries).toEqual(expect.arrayContaining([expect.objectContaining({ status: "sent", error: null })]));

    const slackPosts = receiver.got.filter((g) => g.path === "/slack");
    expect(slackPosts).toHaveLength(2);
    expect(String(slackPosts[0].body.text)).toMatch(/^\*\[Firing\] Datasync alert "Sync failing": "Orders to CRM"/);
    expect(String(slackPosts[0].body.text)).toContain("The source refused the query.");
    expect(String(slackPosts[1].body.text)).toMatch(/^\*\[Resolved\] Datasync alert "Sync failing"/);

    const hookPosts = receiver.got.filter((g) => g.path === "/hook");
    expect(hookPosts.map((h) => h.body.event)).toEqual(["alert.firing", "alert.resolved"]);
    expect(hookPosts[0].body).toMatchObject({ alert_rule_id: rule.id, sync_id: sync.id, rule_name: "Sync failing" });

    const mails = smtp.mails.filter((m) => m.to.includes(adminEmail));
    expect(mails.map((m) => decodeHeader(m.subject))).toEqual([
      `[Firing] Datasync alert "Sync failing": "Orders to CRM" (sync ${sync.id})`,
      `[Resolved] Datasync alert "Sync failing": "Orders to CRM" (sync ${sync.id})`,
    ]);
    expect(mails[0].text).toMatch(/Stop these mails: \/alert-subscription\/unsubscribe\?token=[\w-]{43}/);

    const state = await getAlertRule(workspaceId, rule.id);
    expect(state.states).toEqual([]);
  });

  it("a canceled run neither fires nor resolves; a rejected-rows rule fires on the share of rejected rows", async () => {
    const { sync } = await bareSync(workspaceId);
    const hook = await createAlertChannel(auth, { name: "hook2", channel_type: "webhook", url: `${receiver.url}/rejects` });
    const rule = await createAlertRule(auth, { name: "Rejects", condition: "rejected_rows_percent", threshold: 10, channel_ids: [hook.id] });
    await evaluated(rule.id, await endRun(sync.id, "success", { total: 100, failed: 5 }));
    await evaluated(rule.id, await endRun(sync.id, "success", { total: 100, failed: 20 }));
    // Canceled: the run ends failed with the cancel sentence; the state keeps its last run.
    const canceled = await prisma().syncRun.create({ data: { workspaceId, syncId: sync.id, status: "in_progress", syncRunType: "general", timings: {} } });
    await setRunStatus(pgPool(), canceled.id, "failed", { error: "x", finished: true, canceledBy: "Ada" });
    expect(await evaluateRunEnd(canceled.id)).toEqual([]);
    await evaluated(rule.id, await endRun(sync.id, "success", { total: 100, failed: 30 }));
    const events = await settledEvents(rule.id);
    expect(events.map((e) => e.kind)).toEqual(["firing"]);
    expect(receiver.got.filter((g) => g.path === "/rejects")).toHaveLength(1);
    expect((await getAlertRule(workspaceId, rule.id)).states).toMatchObject([{ syncId: sync.id, status: "firing" }]);
  });
});

describe("channels", () => {
  it("without SMTP_URL an email is logged, and the event lists it with its message", async () => {
    delete process.env.SMTP_URL;
    const { sync } = await bareSync(workspaceId);
    const mailedBefore = smtp.mails.length;
    const email = await createAlertChannel(auth, { name: "no smtp", channel_type: "email", recipients: [adminEmail] });
    const rule = await createAlertRule(auth, { name: "Big change", sync_id: sync.id, condition: "rows_changed", threshold: 1000, channel_ids: [email.id] });
    await evaluated(rule.id, await endRun(sync.id, "success", { total: 5000 }));
    const [event] = await settledEvents(rule.id);
    expect(event.deliveries).toMatchObject([{ channel_id: email.id, status: "logged", error: null }]);
    expect(event.message).toMatch(/changed more than 1,000 rows/);
    expect(event.message).toContain("5000 rows sent");
    expect(smtp.mails.length).toBe(mailedBefore);
  });

  it("masks a Slack URL in answers and keeps it when the mask comes back", async () => {
    const secret = `${receiver.url}/services/T000/B000/XXXXsecretXXXX`;
    const slack = await createAlertChannel(auth, { name: "masked", channel_type: "slack", url: secret });
    const shown = serializeAlertChannel(slack);
    expect(JSON.stringify(shown)).not.toContain("XXXXsecretXXXX");
    expect(shown.attributes).toMatchObject({ url: "*************", url_host: new URL(receiver.url).host });
    await updateAlertChannel(auth, slack.id, { name: "masked 2", url: "*************" });
    const result = await testAlertChannel(auth, slack.id);
    expect(result).toMatchObject({ status: "sent", error: null });
    expect(receiver.got.some((g) => g.path === "/services/T000/B000/XXXXsecretXXXX" && String(g.body.text).includes("[Test]"))).toBe(true);
    const stored = await prisma().alertChannel.findUniqueOrThrow({ where: { id: slack.id } });
    expect(stored.configurationEncrypted).not.toContain("secret");
  });

  it("a Slack channel turned into a webhook channel does not carry (and so show) its secret URL", async () => {
    const secret = `${receiver.url}/services/T111/B111/YYYYsecretYYYY`;
    const slack = await createAlertChannel(auth, { name: "slack to webhook", channel_type: "slack", url: secret });
    for (const url of [undefined, "*************"]) {
      await expect(updateAlertChannel(auth, slack.id, { channel_type: "webhook", ...(url ? { url } : {}) })).rejects.toThrow(/url.*secret and is not kept/);
    }
    const after = await getAlertChannel(workspaceId, slack.id);
    expect(after.channelType).toBe("slack");
    expect(JSON.stringify(serializeAlertChannel(after))).not.toContain("YYYYsecretYYYY");
    // A new URL, or a type without a URL, is fine.
    const hook = await updateAlertChannel(auth, slack.id, { channel_type: "webhook", url: `${receiver.url}/new` });
    expect(serializeAlertChannel(hook).attributes).toMatchObject({ url: `${receiver.url}/new` });
    const other = await createAlertChannel(auth, { name: "slack to email", channel_type: "slack", url: secret });
    const mail = await updateAlertChannel(auth, other.id, { channel_type: "email", recipients: ["ops@example.com"] });
    expect(JSON.stringify(serializeAlertChannel(mail))).not.toContain("YYYYsecretYYYY");
  });

  it("the test button answers a receiver's refusal; the outbound policy holds when saved and when sent", async () => {
    receiver.status.set("/refuses", 500);
    const refusing = await createAlertChannel(auth, { name: "refusing", channel_type: "webhook", url: `${receiver.url}/refuses` });
    expect(await testAlertChannel(auth, refusing.id)).toMatchObject({ status: "failed", error: expect.stringMatching(/HTTP 500: receiver refused/) });

    await expect(createAlertChannel(auth, { name: "metadata", channel_type: "webhook", url: "http://169.254.169.254/latest" })).rejects.toThrow(ValidationFailed);
    await expect(createAlertChannel(auth, { name: "file", channel_type: "slack", url: "file:///etc/passwd" })).rejects.toThrow(/http and https/);

    // Allowed when saved, refused when sent: the policy is applied again at send time.
    const local = await createAlertChannel(auth, { name: "local", channel_type: "webhook", url: `${receiver.url}/later` });
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const before = receiver.got.length;
    const blocked = await testAlertChannel(auth, local.id);
    expect(blocked.status).toBe("failed");
    expect(blocked.error).toMatch(/not allowed|private|loopback/i);
    expect(receiver.got.length).toBe(before);
    await expect(createAlertChannel(auth, { name: "local2", channel_type: "webhook", url: `${receiver.url}/x` })).rejects.toThrow(ValidationFailed);
  });

  it("another workspace's channel or rule is not found, and cannot be named by a rule", async () => {
    const other = await newMember("Admin");
    const foreign = await createAlertChannel(other.auth, { name: "theirs", channel_type: "email", recipients: ["a@example.com"] });
    await expect(getAlertChannel(workspaceId, foreign.id)).rejects.toThrow(NotFound);
    await expect(createAlertRule(auth, { name: "steal", condition: "run_failed", channel_ids: [foreign.id] })).rejects.toThrow(/not found in this workspace/);
    const theirRule = await createAlertRule(other.auth, { name: "theirs", condition: "run_failed", channel_ids: [foreign.id] });
    await expect(getAlertRule(workspaceId, theirRule.id)).rejects.toThrow(NotFound);
  });
});

describe("limits", () => {
  it("a workspace has at most MAX_ALERT_CHANNELS channels and MAX_ALERT_RULES rules, even when created all at once", async () => {
    const flooder = await newMember("Member");
    const channel = (i: number) => createAlertChannel(flooder.auth, { name: `c${i}`, channel_type: "webhook", url: `${receiver.url}/c${i}` });
    const channels = await Promise.allSettled(Array.from({ length: MAX_ALERT_CHANNELS + 5 }, (_, i) => channel(i)));
    expect(channels.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_ALERT_CHANNELS);
    expect(channels.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : [])).every((e) => e instanceof Conflict)).toBe(true);
    const first = channels.find((r) => r.status === "fulfilled")!.value;
    const rule = (i: number) => createAlertRule(flooder.auth, { name: `r${i}`, condition: "run_failed", channel_ids: [first.id] });
    const rules = await Promise.allSettled(Array.from({ length: MAX_ALERT_RULES + 5 }, (_, i) => rule(i)));
    expect(rules.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_ALERT_RULES);
    expect(rules.filter((r) => r.status === "rejected" && r.reason instanceof Conflict)).toHaveLength(5);
    expect(await prisma().alertRule.count({ where: { workspaceId: flooder.workspaceId } })).toBe(MAX_ALERT_RULES);
    // Other workspaces are not affected.
    await createAlertRule(auth, { name: "room", condition: "run_failed", channel_ids: [(await createAlertChannel(auth, { name: "room", channel_type: "email", recipients: ["a@example.com"] })).id] });
  });
});

describe("test messages", () => {
  it("a workspace sends at most CHANNEL_TESTS_PER_MINUTE a minute, so the button cannot mail anyone at will", async () => {
    const member = await newMember("Member");
    const email = await createAlertChannel(member.auth, { name: "many", channel_type: "email", recipients: [member.user.email] });
    for (let i = 0; i < CHANNEL_TESTS_PER_MINUTE; i++) expect((await testAlertChannel(member.auth, email.id)).status).toMatch(/^(sent|logged)$/);
    const refused = await testAlertChannel(member.auth, email.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    expect((refused as RateLimited).headers).toEqual({ "Retry-After": "60" });
    // Another workspace still may.
    const other = await newMember("Member");
    const theirs = await createAlertChannel(other.auth, { name: "theirs", channel_type: "email", recipients: [other.user.email] });
    expect((await testAlertChannel(other.auth, theirs.id)).status).toMatch(/^(sent|logged)$/);
  });
});

describe("the periodic sweep", () => {
  it("fires when a sync has not succeeded for the threshold, and resolves on its next success", async () => {
    const { sync } = await bareSync(workspaceId);
    const hook = await createAlertChannel(auth, { name: "stale hook", channel_type: "webhook", url: `${receiver.url}/stale` });
    const rule = await createAlertRule(auth, { name: "Stale", sync_id: sync.id, condition: "sync_not_succeeded", threshold: 60, channel_ids: [hook.id] });
    const created = sync.createdAt.getTime();
    expect(await sweepAlerts(new Date(created + 30 * 60_000))).toEqual([]);
    const fired = await sweepAlerts(new Date(created + 61 * 60_000));
    expect(fired).toHaveLength(1);
    expect(await sweepAlerts(new Date(created + 120 * 60_000))).toEqual([]);
    const runId = await endRun(sync.id, "success");
    await evaluated(rule.id, runId);
    const events = await prisma().alertEvent.findMany({ where: { alertRuleId: rule.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.kind, e.syncRunId])).toEqual([
      ["firing", null],
      ["resolved", runId],
    ]);
  });

  it("the scheduler's sweep is queued at most once per period", async () => {
    process.env.ALERT_SWEEP_SECONDS = "3600";
    try {
      await queueAlertSweep();
      await queueAlertSweep();
      const { rows } = await pgPool().query("SELECT id FROM pgboss.job WHERE name = 'alerts' AND data->>'kind' = 'sweep'");
      expect(rows).toHaveLength(1);
    } finally {
      delete process.env.ALERT_SWEEP_SECONDS;
    }
  });
});
