// Sends one alert message to one channel: email over SMTP_URL (logged instead when it is unset), a
// Slack incoming webhook, or a generic webhook (JSON POST). HTTP goes through sendHttp, which applies
// the outbound network policy to every address it connects to. Never throws: the result says what
// happened, and an error never carries a Slack URL (sendHttp names hosts only).
import "server-only";
import { sendHttp } from "@/lib/connectors/shared/http";
import { env } from "@/lib/config/env";
import type { AlertChannel } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { createMailer, type Mailer } from "@/lib/mail";
import { channelConfig } from "./channels";

export interface AlertMessage {
  subject: string;
  text: string;
  /** The generic webhook's JSON body. */
  payload: Record<string, unknown>;
}

export interface SendResult {
  status: "sent" | "logged" | "failed";
  error: string | null;
}

const mailers = new Map<string, Mailer>();
function mailerFor(smtpUrl: string): Mailer {
  let m = mailers.get(smtpUrl);
  if (!m) mailers.set(smtpUrl, (m = createMailer({ smtpUrl, from: env.MAIL_FROM })));
  return m;
}

async function sendMail(recipients: string[], message: AlertMessage): Promise<SendResult> {
  const smtpUrl = env.SMTP_URL;
  if (!smtpUrl) {
    // No relay: the message goes to the log, and the event lists it as logged (the console shows it).
    logger.info({ alert: { to: recipients, subject: message.subject } }, `Alert mail not sent (SMTP_URL is not set): ${message.subject}\n${message.text}`);
    return { status: "logged", error: null };
  }
  await mailerFor(smtpUrl).send({ to: recipients.join(", "), subject: message.subject, text: message.text });
  return { status: "sent", error: null };
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
    if (channel.channelType === "email") return await sendMail(config.recipients ?? [], message);
    if (!config.url) return { status: "failed", error: "The channel has no URL." };
    if (channel.channelType === "slack") return await post(config.url, { text: `*${message.subject}*\n${message.text}` });
    return await post(config.url, message.payload);
  } catch (err) {
    return { status: "failed", error: err instanceof Error ? err.message : String(err) };
  }
}
