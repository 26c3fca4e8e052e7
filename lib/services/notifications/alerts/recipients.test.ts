// Alert mail consent against real PostgreSQL and a real SMTP server (e2e/support/smtp.ts): who gets
// confirmation mails and how often, the single-use links, and the hourly cap. The attack over HTTP
// is e2e/api/security-alert-mail.spec.ts.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { prisma } from "@/lib/db/client";
import { ValidationFailed } from "@/lib/errors";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { createAlertChannel, updateAlertChannel, withRecipientStates } from "./channels";
import { testAlertChannel } from "./events";
import { CONFIRMATIONS_PER_ADDRESS_PER_DAY, confirmAlertSubscription, unsubscribeAlertSubscription } from "./recipients";

useTestDatabase();

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp?.close();
});

const stranger = () => `stranger-${randomBytes(4).toString("hex")}@example.net`;
const confirmationsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email) && m.subject === "Confirm Datasync alert mails");
const tokenOf = (text: string, path: string) => new RegExp(`${path}\\?token=([\\w-]+)`).exec(text)![1];
const client = { ip: "198.51.100.7" };

describe("alert mail consent", () => {
  it("an address that is not a member's gets one confirmation, not again when re-added inside the window, and no alert until it confirms", async () => {
    const { auth } = await newMember("Member");
    const [a, b] = [stranger(), stranger()];
    const channel = await createAlertChannel(auth, { name: "c", channel_type: "email", recipients: [a] });
    await expect.poll(() => confirmationsTo(a).length).toBe(1);
    expect(confirmationsTo(a)[0].text).toMatch(/added this address to an alert channel/);
    expect(await testAlertChannel(auth, channel.id)).toMatchObject({ status: "unconfirmed", recipients: { mailed: 0, unconfirmed: 1, suppressed: 0 } });

    // Removed and added again: b is asked, a is not asked twice.
    await updateAlertChannel(auth, channel.id, { recipients: [b] });
    await updateAlertChannel(auth, channel.id, { recipients: [a, b] });
    await expect.poll(() => confirmationsTo(b).length).toBe(1);
    expect(confirmationsTo(a)).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to.includes(a))).toHaveLength(1);

    const view = await withRecipientStates(await prisma().alertChannel.findUniqueOrThrow({ where: { id: channel.id } }));
    expect(view.recipientStates?.map((r) => [r.email, r.status, r.confirmationSentAt !== null])).toEqual([
      [a, "pending", true],
      [b, "pending", true],
    ]);
  });

  it(`one address gets at most ${CONFIRMATIONS_PER_ADDRESS_PER_DAY} confirmations a day, from however many workspaces`, async () => {
    const target = stranger();
    for (let i = 0; i < CONFIRMATIONS_PER_ADDRESS_PER_DAY + 2; i++) {
      const { auth } = await newMember("Member");
      await createAlertChannel(auth, { name: `w${i}`, channel_type: "email", recipients: [target] });
    }
    await expect.poll(() => confirmationsTo(target).length).toBe(CONFIRMATIONS_PER_ADDRESS_PER_DAY);
    const rows = await prisma().alertSubscription.findMany({ where: { email: target } });
    expect(rows.filter((r) => r.confirmationSentAt !== null)).toHaveLength(CONFIRMATIONS_PER_ADDRESS_PER_DAY);
  });

  it("a workspace mails at most ALERT_MAX_CONFIRMATIONS_PER_HOUR confirmations; the rest wait unmailed", async () => {
    process.env.ALERT_MAX_CONFIRMATIONS_PER_HOUR = "3";
    try {
      const { auth } = await newMember("Member");
      const addresses = Array.from({ length: 8 }, stranger);
      const channel = await createAlertChannel(auth, { name: "many", channel_type: "email", recipients: addresses });
      const view = await withRecipientStates(channel);
      expect(view.recipientStates?.filter((r) => r.confirmationSentAt !== null)).toHaveLength(3);
      await expect.poll(() => addresses.filter((a) => confirmationsTo(a).length > 0).length).toBe(3);
    } finally {
      delete process.env.ALERT_MAX_CONFIRMATIONS_PER_HOUR;
    }
  });

  it("a confirmation link works once (also when used twice at once) and expires; an unsubscribe link works once and stops the mails", async () => {
    const { auth } = await newMember("Member");
    const [a, b] = [stranger(), stranger()];
    const channel = await createAlertChannel(auth, { name: "links", channel_type: "email", recipients: [a, b] });
    await expect.poll(() => confirmationsTo(a).length + confirmationsTo(b).length).toBe(2);
    const tokenA = tokenOf(confirmationsTo(a)[0].text, "/alert-subscription/confirm");
    const both = await Promise.allSettled([confirmAlertSubscription(tokenA, client), confirmAlertSubscription(tokenA, client)]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(both.find((r) => r.status === "rejected")?.reason).toBeInstanceOf(ValidationFailed);

    const tokenB = tokenOf(confirmationsTo(b)[0].text, "/alert-subscription/confirm");
    await prisma().alertSubscription.updateMany({ where: { email: b }, data: { confirmExpiresAt: new Date(Date.now() - 1000) } });
    await expect(confirmAlertSubscription(tokenB, client)).rejects.toThrow(/expired/);
    await expect(confirmAlertSubscription(tokenB, client)).rejects.toThrow(/not valid/);

    expect(await testAlertChannel(auth, channel.id)).toMatchObject({ status: "sent", recipients: { mailed: 1, unconfirmed: 1, suppressed: 0 } });
    const alert = smtp.mails.find((m) => m.to.includes(a) && m.subject.includes("Test"))!;
    expect(alert.to).toEqual([a]);
    const unsubscribe = tokenOf(alert.text, "/alert-subscription/unsubscribe");
    await unsubscribeAlertSubscription(unsubscribe, client);
    await expect(unsubscribeAlertSubscription(unsubscribe, client)).rejects.toThrow(/not valid/);
    expect(await testAlertChannel(auth, channel.id)).toMatchObject({ status: "unconfirmed" });
    // Re-added after unsubscribing: still nothing, not even a confirmation.
    await updateAlertChannel(auth, channel.id, { recipients: [a] });
    expect(smtp.mails.filter((m) => m.to.includes(a))).toHaveLength(2);
  });

  it("past ALERT_MAX_MAILS_PER_HOUR a message is suppressed, and the result says so", async () => {
    process.env.ALERT_MAX_MAILS_PER_HOUR = "2";
    try {
      const { auth, user } = await newMember("Member");
      const channel = await createAlertChannel(auth, { name: "capped", channel_type: "email", recipients: [user.email] });
      expect((await testAlertChannel(auth, channel.id)).status).toBe("sent");
      expect((await testAlertChannel(auth, channel.id)).status).toBe("sent");
      expect(await testAlertChannel(auth, channel.id)).toMatchObject({
        status: "suppressed",
        error: expect.stringContaining("ALERT_MAX_MAILS_PER_HOUR"),
        recipients: { mailed: 0, unconfirmed: 0, suppressed: 1 },
      });
      expect(smtp.mails.filter((m) => m.to.includes(user.email))).toHaveLength(2);
    } finally {
      delete process.env.ALERT_MAX_MAILS_PER_HOUR;
    }
  });

  it("a workspace has at most ALERT_MAX_EMAIL_CHANNELS email channels, and a channel at most ALERT_MAX_RECIPIENTS_PER_CHANNEL addresses", async () => {
    process.env.ALERT_MAX_EMAIL_CHANNELS = "2";
    process.env.ALERT_MAX_RECIPIENTS_PER_CHANNEL = "3";
    try {
      const { auth, user } = await newMember("Member");
      const made = await Promise.allSettled([0, 1, 2, 3].map((i) => createAlertChannel(auth, { name: `e${i}`, channel_type: "email", recipients: [user.email] })));
      expect(made.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      await expect(createAlertChannel(auth, { name: "wide", channel_type: "email", recipients: [stranger(), stranger(), stranger(), stranger()] })).rejects.toThrow(
        /ALERT_MAX_RECIPIENTS_PER_CHANNEL/,
      );
    } finally {
      delete process.env.ALERT_MAX_EMAIL_CHANNELS;
      delete process.env.ALERT_MAX_RECIPIENTS_PER_CHANNEL;
    }
  });
});
