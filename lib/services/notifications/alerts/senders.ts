// Sends one alert message to one channel: email over SMTP_URL (logged instead when it is unset), a
// Slack incoming webhook, or a generic webhook (JSON POST). HTTP goes through sendHttp, which applies
// the outbound network policy to every address it connects to. Never throws: the result says what
// happened, and an error never carries a Slack URL (sendHttp names hosts only).
// Email goes one mail per recipient (each with its own unsubscribe link, and no recipient sees the
// others), only to members and confirmed addresses (./recipients.ts), each mail counted against the
// workspace's ALERT_MAX_MAILS_PER_HOUR: past it the rest is suppressed, and the result says so.
import "server-only";
import { sendHttp } from "@/lib/net/http";
import { env } from "@/lib/settings/env";
import type { AlertChannel } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { createMailer, type Mailer } from "@/lib/mail";
import { reserveInWindow } from "../../accounts/login-throttle";
import { channelConfig } from "./channels";
import { mailableRecipients, requestConfirmations } from "./recipients";
import { safeSubject } from "./subject";

export interface AlertMessage {
  subject: string;
  text: string;
  /** The generic webhook's JSON body. */
  payload: Record<string, unknown>;
}

/** An email channel's recipients: mailed (or logged), not allowed yet (pending confirmation), held back by the hourly cap. */
export interface RecipientCounts {
  mailed: number;
  unconfirmed: number;
  suppressed: number;
}

export interface SendResult {
  /** suppressed: the workspace's hourly mail cap held (some of) it back; unconfirmed: no recipient may get it yet. */
  status: "sent" | "logged" | "failed" | "suppressed" | "unconfirmed";
  error: string | null;
  recipients?: RecipientCounts | null;
}

const mailers = new Map<string, Mailer>();
function mailerFor(smtpUrl: string): Mailer {
  let m = mailers.get(smtpUrl);
  if (!m) mailers.set(smtpUrl, (m = createMailer({ smtpUrl, from: env.MAIL_FROM })));
  return m;
}

/** The text of one recipient's mail: the message and the way out. */
const withUnsubscribe = (text: string, link: string) =>
  `${text}\n\n--\nYou get this because a Datasync workspace added your address to an alert channel. Stop these mails: ${link}`;

async function sendMail(channel: AlertChannel, recipients: string[], message: AlertMessage): Promise<SendResult> {
  const { to, unconfirmed } = await mailableRecipients(channel.workspaceId, recipients);
  // Addresses a cap kept from their confirmation mail get it now, still within the caps.
  if (unconfirmed > 0) await requestConfirmations(channel.workspaceId, recipients, { onlyUnsent: true });
  if (to.length === 0) {
    return {
      status: "unconfirmed",
      error: "Nothing was mailed: no recipient of this channel is a member of the workspace or an address that confirmed (pending ones get alerts once they confirm the mailed link; unsubscribed ones never).",
      recipients: { mailed: 0, unconfirmed, suppressed: 0 },
    };
  }
  const subject = safeSubject(message.subject);
  const cap = env.ALERT_MAX_MAILS_PER_HOUR;
  let mailed = 0;
  let logged = false;
  for (const r of to) {
    if ((await reserveInWindow(`alert-mails:${channel.workspaceId}`, cap, 3600)) !== null) break;
    const text = withUnsubscribe(message.text, r.unsubscribe);
    const smtpUrl = env.SMTP_URL;
    if (!smtpUrl) {
      // No relay: the message goes to the log, and the event lists it as logged (the console shows it).
      logger.info({ alert: { to: r.email, subject } }, `Alert mail not sent (SMTP_URL is not set): ${subject}\n${text}`);
      logged = true;
    } else {
      await mailerFor(smtpUrl).send({ to: r.email, subject, text });
    }
    mailed++;
  }
  const suppressed = to.length - mailed;
  const recipientCounts = { mailed, unconfirmed, suppressed };
  if (suppressed > 0) {
    return {
      status: "suppressed",
      error: `The workspace reached its limit of ${cap} alert mails an hour (ALERT_MAX_MAILS_PER_HOUR): ${suppressed} of ${to.length} recipients were not mailed.`,
      recipients: recipientCounts,
    };
  }
  return { status: logged ? "logged" : "sent", error: null, recipients: recipientCounts };
}

async function post(url: string, body: unknown): Promise<SendResult> {
  const exchange = await sendHttp({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    timeoutMs: env.ALERT_HTTP_TIMEOUT_MS,
    maxBodyBytes: 4096,
  });
  if (exchange.failure) return { status: "failed", error: exchange.error ?? "The request failed." };
  if (exchange.status < 200 || exchange.status >= 300) {
    const answer = exchange.bodyText.trim().slice(0, 200);
    return { status: "failed", error: `The receiver answered HTTP ${exchange.status}${answer ? `: ${answer}` : ""}.` };
  }
  return { status: "sent", error: null };
}

export async function sendToChannel(channel: AlertChannel, message: AlertMessage): Promise<SendResult> {
  try {
    const config = channelConfig(channel);
    if (channel.channelType === "email") return await sendMail(channel, config.recipients ?? [], message);
    if (!config.url) return { status: "failed", error: "The channel has no URL." };
    if (channel.channelType === "slack") return await post(config.url, { text: `*${message.subject}*\n${message.text}` });
    return await post(config.url, message.payload);
  } catch (err) {
    return { status: "failed", error: err instanceof Error ? err.message : String(err) };
  }
}
