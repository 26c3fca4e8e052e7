// Issue 32 item 3, "alert rules as a mail cannon", performed over real HTTP: a Member makes email
// channels full of addresses of their choice and many rules, and one run fails. On a second server
// that sends mail over SMTP to a real SMTP server this spec runs on 127.0.0.1 (the worker on, so runs
// and alerts go as in production), with small caps so the test can reach them:
// ALERT_MAX_EMAIL_CHANNELS=3, ALERT_MAX_RECIPIENTS_PER_CHANNEL=20, ALERT_MAX_MAILS_PER_HOUR=8,
// ALERT_MAX_CONFIRMATIONS_PER_HOUR=5. docs/security.md ("Alert mail") says what this proves.
import { expect, request as playwrightRequest, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { ADMIN, Api, clientAddress, expectError, fieldErrors, uniqueSuffix, type Session } from "../support/api";
import { ensureTestDatabase, sql } from "../support/data";
import { rejectingSync, trigger, waitForRun } from "../support/run-scenarios";
import { startSecondServer, type SecondServer } from "../support/second-server";
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from "../support/smtp";

test.describe.configure({ mode: "serial", timeout: 240_000 });

const CONSOLE = "https://console.example.test";
const CAPS = { channels: 3, recipients: 20, mailsPerHour: 8, confirmationsPerHour: 5 };

let server: SecondServer | undefined;
let smtp: SmtpCapture;
let anonymous: APIRequestContext;
const tables: string[] = [];

/** An Api on the second server: the shared helpers (rejectingSync, trigger) work through it unchanged. */
class ServerApi extends Api {
  constructor(
    session: Session,
    private readonly base: string,
  ) {
    super(session);
  }
  override get(path: string) {
    return super.get(this.base + path);
  }
  override post(path: string, data?: unknown, extra: Record<string, string> = {}) {
    return super.post(this.base + path, data, extra);
  }
  override put(path: string, data?: unknown) {
    return super.put(this.base + path, data);
  }
  override delete(path: string) {
    return super.delete(this.base + path);
  }
  override inWorkspace(workspaceId: number | undefined): ServerApi {
    return new ServerApi({ ...this.session, workspaceId }, this.base);
  }
}

async function login(email: string, password: string): Promise<string> {
  const res = await anonymous.post("/api/v1/login", { data: { email, password }, headers: { "X-Forwarded-For": clientAddress() } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes.token as string;
}

/** A new workspace of the seeded Admin (admin@example.com, a verified member), and a Member in it. */
async function workspaceWithMember(): Promise<{ id: number; admin: ServerApi; member: ServerApi; memberEmail: string }> {
  const root = new ServerApi({ token: await login(ADMIN.email, ADMIN.password) }, server!.base);
  const res = await root.post("/api/v1/workspaces", { workspace: { name: `mail ${uniqueSuffix()}` } });
  expect(res.status(), await res.text()).toBe(201);
  const id = Number((await res.json()).data.id);
  const admin = root.inWorkspace(id);
  const roles = (await (await admin.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const memberRole = Number(roles.find((r) => r.attributes.role_name === "Member")!.id);
  const memberEmail = `member-${uniqueSuffix()}@example.com`;
  const password = `pw-${uniqueSuffix()}-long`;
  const added = await admin.post(`/api/v1/workspaces/${id}/members`, { member: { email: memberEmail, name: "Member", role_id: memberRole } });
  expect(added.status(), await added.text()).toBe(201);
  // The invited person chooses their password through the link mailed to them.
  const invitation = await smtp.waitFor(memberEmail, (m) => m.link?.includes("/accept-invitation?") ?? false);
  const accepted = await anonymous.post("/api/v1/accept_invitation", {
    headers: { "X-Forwarded-For": clientAddress() },
    data: { invitation_token: new URL(invitation.link!).searchParams.get("invitation_token"), password, password_confirmation: password },
  });
  expect(accepted.status(), await accepted.text()).toBe(200);
  return { id, admin, member: new ServerApi({ token: await login(memberEmail, password), workspaceId: id }, server!.base), memberEmail };
}

async function created(res: APIResponse) {
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data;
}

type Recipient = { email: string; status: string; confirmation_sent_at: string | null };
type Delivery = { channel_id: number; status: string; error: string | null; recipients: { mailed: number; unconfirmed: number; suppressed: number } | null };
type Event = { attributes: { subject: string; deliveries: Delivery[] } };

const isConfirmation = (m: CapturedMail) => m.subject === "Confirm Datasync alert mails";
const isAlert = (m: CapturedMail) => decodeHeader(m.subject).startsWith("[");
const tokenIn = (text: string, path: string) => new RegExp(`${path}\\?token=([\\w-]+)`).exec(text)?.[1];

/** A header as nodemailer writes it, MIME encoded-words decoded. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?UTF-8\?[QB]\?/gi, "")
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, q: string) =>
      Buffer.from(q.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8"),
    )
    .replace(/=\?UTF-8\?B\?(.*?)\?=/gi, (_, b: string) => Buffer.from(b, "base64").toString("utf8"));
}

/** Waits until the rules' events exist and none of their deliveries is pending; returns them. */
async function settledEvents(api: ServerApi, syncId: number, count: number): Promise<Event[]> {
  let events: Event[] = [];
  await expect
    .poll(
      async () => {
        events = (await (await api.get(`/api/v1/alert_events?sync_id=${syncId}&per_page=100`)).json()).data;
        return events.length === count && events.every((e) => e.attributes.deliveries.every((d) => d.status !== "pending"));
      },
      { timeout: 90_000 },
    )
    .toBe(true);
  return events;
}

/** A sync on the test database whose next run fails (its model's table is gone). */
async function failingSync(api: ServerApi): Promise<number> {
  const { syncId, tables: made } = await rejectingSync(api);
  tables.push(...made);
  await sql(`DROP TABLE ${made[0]}`);
  return syncId;
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  await ensureTestDatabase();
  smtp = await startSmtpCapture();
  server = await startSecondServer({
    env: {
      RUN_WORKER: "1",
      SMTP_URL: smtp.url,
      CONSOLE_URL: CONSOLE,
      MAIL_FROM: "Datasync <alerts@example.test>",
      ALERT_MAX_EMAIL_CHANNELS: String(CAPS.channels),
      ALERT_MAX_RECIPIENTS_PER_CHANNEL: String(CAPS.recipients),
      ALERT_MAX_MAILS_PER_HOUR: String(CAPS.mailsPerHour),
      ALERT_MAX_CONFIRMATIONS_PER_HOUR: String(CAPS.confirmationsPerHour),
    },
    dataDir: ".data/e2e-alert-mail",
    waitSeconds: 280,
  });
  anonymous = await playwrightRequest.newContext({ baseURL: server.base });
});

test.afterAll(async () => {
  await anonymous?.dispose();
  server?.stop();
  await smtp?.close();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("the issue's attack: many channels, rules and addresses, one failed run — only members and confirmed addresses get alerts, confirmations and mails stay within the caps, suppression is reported", async () => {
  const ws = await workspaceWithMember();
  const victims = (c: number) => Array.from({ length: CAPS.recipients }, (_, i) => `victim-${c}-${i}-${uniqueSuffix()}@victims.test`);
  // The Member's own channels: the first also names the Admin (a member of the workspace).
  const lists = [[ADMIN.email, ...victims(0).slice(1)], victims(1), victims(2)];
  const channels = [];
  for (const [i, recipients] of lists.entries()) {
    channels.push(await created(await ws.member.post("/api/v1/alert_channels", { alert_channel: { name: `Blast ${i}`, channel_type: "email", recipients } })));
  }
  // Beyond the caps: a fourth email channel, and a channel of 21 addresses.
  const fourth = await expectError(
    await ws.member.post("/api/v1/alert_channels", { alert_channel: { name: "Blast 3", channel_type: "email", recipients: victims(3) } }),
    409,
    "conflict",
  );
  expect(String(fourth.message)).toContain("ALERT_MAX_EMAIL_CHANNELS");
  const tooMany = await expectError(
    await ws.member.put(`/api/v1/alert_channels/${channels[1].id}`, { alert_channel: { recipients: [...victims(4), "one-more@victims.test"] } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(tooMany)).toContainEqual({ path: "alert_channel.recipients", message: `must be at most ${CAPS.recipients} addresses (this server's ALERT_MAX_RECIPIENTS_PER_CHANNEL)` });

  // Each answer says where each address stands: the Admin is a member; of the 59 strangers, only
  // ALERT_MAX_CONFIRMATIONS_PER_HOUR were mailed a confirmation, the others wait unmailed.
  const states: Recipient[] = [];
  for (const c of channels) states.push(...((await (await ws.member.get(`/api/v1/alert_channels/${c.id}`)).json()).data.attributes.recipient_states as Recipient[]));
  expect(states.find((r) => r.email === ADMIN.email)).toMatchObject({ status: "member", confirmation_sent_at: null });
  const strangers = states.filter((r) => r.email !== ADMIN.email);
  expect(strangers).toHaveLength(3 * CAPS.recipients - 1);
  expect(strangers.every((r) => r.status === "pending")).toBe(true);
  const mailed = strangers.filter((r) => r.confirmation_sent_at !== null);
  expect(mailed).toHaveLength(CAPS.confirmationsPerHour);
  await expect.poll(() => smtp.mails.filter(isConfirmation).length, { timeout: 30_000 }).toBe(CAPS.confirmationsPerHour);
  const confirmations = smtp.mails.filter(isConfirmation);
  expect(confirmations.map((m) => m.to[0]).sort()).toEqual(mailed.map((r) => r.email).sort());
  expect(confirmations[0].link).toMatch(new RegExp(`^${CONSOLE}/alert-subscription/confirm\\?token=[\\w-]{43}$`));

  // One stranger confirms, through the link: it works once.
  const confirmed = confirmations[0];
  const token = tokenIn(confirmed.text, "alert-subscription/confirm")!;
  const ok = await anonymous.post("/api/v1/alert_subscriptions/confirm", { data: { token }, headers: { "X-Forwarded-For": clientAddress() } });
  expect(ok.status(), await ok.text()).toBe(200);
  expect((await ok.json()).data.attributes.message).toContain(confirmed.to[0]);
  await expectError(await anonymous.post("/api/v1/alert_subscriptions/confirm", { data: { token }, headers: { "X-Forwarded-For": clientAddress() } }), 422, "validation_failed");

  // Re-saving the channels sends nothing more (the hour's confirmations are spent; the mailed ones are inside their window).
  for (const [i, c] of channels.entries()) expect((await ws.member.put(`/api/v1/alert_channels/${c.id}`, { alert_channel: { recipients: lists[i] } })).status()).toBe(200);

  // Ten rules on all three channels, and one failed run.
  const syncId = await failingSync(ws.member);
  for (let i = 0; i < 10; i++) {
    await created(await ws.member.post("/api/v1/alert_rules", { alert_rule: { name: `Rule ${i}`, sync_id: syncId, condition: "run_failed", channel_ids: channels.map((c) => Number(c.id)) } }));
  }
  const runId = await trigger(ws.member, syncId);
  expect(await waitForRun(ws.member, syncId, runId)).toMatchObject({ status: "failed" });
  const events = await settledEvents(ws.member, syncId, 10);

  // 10 rules × (the Admin + the confirmed address) = 20 mails wanted; the hour allows 8.
  const alerts = smtp.mails.filter(isAlert);
  expect(alerts).toHaveLength(CAPS.mailsPerHour);
  expect(new Set(alerts.flatMap((m) => m.to))).toEqual(new Set([ADMIN.email, confirmed.to[0]]));
  for (const m of alerts) expect(m.to).toHaveLength(1);
  const deliveries = events.flatMap((e) => e.attributes.deliveries);
  expect(deliveries.reduce((n, d) => n + (d.recipients?.mailed ?? 0), 0)).toBe(CAPS.mailsPerHour);
  const suppressed = deliveries.filter((d) => d.status === "suppressed");
  expect(suppressed.length).toBeGreaterThan(0);
  expect(suppressed[0].error).toContain("ALERT_MAX_MAILS_PER_HOUR");
  expect(suppressed.reduce((n, d) => n + (d.recipients?.suppressed ?? 0), 0)).toBe(20 - CAPS.mailsPerHour);
  // The channels of strangers only: nothing mailed, and said so.
  for (const c of channels.slice(1)) {
    for (const d of deliveries.filter((x) => x.channel_id === Number(c.id))) {
      expect(d).toMatchObject({ status: "unconfirmed", recipients: { mailed: 0, unconfirmed: CAPS.recipients, suppressed: 0 } });
    }
  }
  // Every other stranger got at most the one confirmation mail, and nothing else; no more confirmations went out.
  const strangerMail = smtp.mails.filter((m) => m.to.some((t) => t.endsWith("@victims.test") && t !== confirmed.to[0]));
  expect(strangerMail.every(isConfirmation)).toBe(true);
  expect(smtp.mails.filter(isConfirmation)).toHaveLength(CAPS.confirmationsPerHour);
});

test("a subject with line breaks and a long text of the workspace's cannot inject a header, and is cut short and quoted; unsubscribe links work once", async () => {
  const ws = await workspaceWithMember();
  const evil = "Ops\r\nBcc: injected@evil.test\r\nX-Injected: yes\r\n\r\nPlease wire the money today to ";
  const name = (evil + "A".repeat(100)).slice(0, 100);
  const channel = await created(await ws.member.post("/api/v1/alert_channels", { alert_channel: { name, channel_type: "email", recipients: [ws.memberEmail] } }));
  expect(channel.attributes.recipient_states).toEqual([{ email: ws.memberEmail, status: "member", confirmation_sent_at: null }]);

  // The channel's test message, and a firing alert of a rule with the same name.
  const tested = await ws.member.post(`/api/v1/alert_channels/${channel.id}/test`);
  expect((await tested.json()).data).toMatchObject({ status: "sent", error: null });
  const syncId = await failingSync(ws.member);
  await created(await ws.member.post("/api/v1/alert_rules", { alert_rule: { name, sync_id: syncId, condition: "run_failed", channel_ids: [Number(channel.id)] } }));
  const runId = await trigger(ws.member, syncId);
  await waitForRun(ws.member, syncId, runId);
  const [event] = await settledEvents(ws.member, syncId, 1);
  expect(event.attributes.deliveries[0]).toMatchObject({ status: "sent", recipients: { mailed: 1, unconfirmed: 0, suppressed: 0 } });

  await expect.poll(() => smtp.mails.filter((m) => m.to.includes(ws.memberEmail) && isAlert(m)).length, { timeout: 30_000 }).toBe(2);
  const mails = smtp.mails.filter((m) => m.to.includes(ws.memberEmail) && isAlert(m));
  const subjects = mails.map((m) => decodeHeader(m.subject));
  // One line; the workspace's text quoted after the product's words, cut to 40 characters.
  const quotedName = `"Ops Bcc: injected@evil.test X-Injected:…"`;
  const syncName = (await (await ws.member.get(`/api/v1/syncs/${syncId}`)).json()).attributes.name as string;
  expect(subjects).toEqual([`[Test] Datasync alert channel ${quotedName}`, `[Firing] Datasync alert ${quotedName}: "${syncName}" (sync ${syncId})`]);
  expect(event.attributes.subject).toBe(subjects[1]);
  for (const m of mails) {
    expect(m.headers).not.toMatch(/^X-Injected:/im);
    expect(m.headers).not.toMatch(/^Bcc:/im);
  }
  expect(smtp.mails.some((m) => m.to.includes("injected@evil.test"))).toBe(false);

  // Every alert mail carries its recipient's unsubscribe link; it works once, and then nothing more arrives.
  const token = tokenIn(mails[1].text, "alert-subscription/unsubscribe");
  expect(mails[1].text).toContain(`${CONSOLE}/alert-subscription/unsubscribe?token=${token}`);
  const unsubscribe = () => anonymous.post("/api/v1/alert_subscriptions/unsubscribe", { data: { token }, headers: { "X-Forwarded-For": clientAddress() } });
  expect((await unsubscribe()).status()).toBe(200);
  await expectError(await unsubscribe(), 422, "validation_failed");
  const after = (await (await ws.member.get(`/api/v1/alert_channels/${channel.id}`)).json()).data.attributes;
  expect(after.recipient_states).toEqual([{ email: ws.memberEmail, status: "unsubscribed", confirmation_sent_at: null }]);
  const again = (await (await ws.member.post(`/api/v1/alert_channels/${channel.id}/test`)).json()).data;
  expect(again).toMatchObject({ status: "unconfirmed", error: expect.stringContaining("Nothing was mailed") });
  expect(smtp.mails.filter((m) => m.to.includes(ws.memberEmail) && isAlert(m))).toHaveLength(2);
});
