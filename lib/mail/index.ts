// Sends the mails of the account flows (password reset, email verification). With SMTP_URL set, a
// message goes out through that server (nodemailer); without it, the message is not sent and its
// link is written to the log at info level instead, so an operator without mail can still hand a
// person their link. Links carry single-use secrets: they are logged only on that path, never when
// mail goes out. MAIL_DIR (development and tests) also keeps each unsent mail as a JSON file there.
import { randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { createTransport, type Transporter } from "nodemailer";
import { env } from "@/lib/settings/env";
import { logger as defaultLogger, type Logger } from "@/lib/logger";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The one link the message is about, logged when there is no SMTP server. */
  link?: string;
}

export interface MailSettings {
  /** smtp://user:pass@host:port or smtps://…; unset = log instead of sending. */
  smtpUrl?: string;
  from: string;
  /** Without smtpUrl: a directory that gets each mail as `<time>-<random>.json` too. */
  mailDir?: string;
  logger?: Logger;
}

export interface Mailer {
  /** Resolves "smtp" once the server accepted the message, "logged" when there is no server. */
  send(message: MailMessage): Promise<"smtp" | "logged">;
}

export const mailSettings = (): MailSettings => ({
  smtpUrl: env.SMTP_URL,
  from: env.MAIL_FROM,
  mailDir: env.MAIL_DIR,
});

/** Writes the mail under a temporary name, then renames it: a reader never sees half a file. */
async function keepInDir(dir: string, message: MailMessage): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${Date.now()}-${randomBytes(6).toString("hex")}.json`;
  await writeFile(path.join(dir, `${name}.tmp`), JSON.stringify(message), { mode: 0o600 });
  await rename(path.join(dir, `${name}.tmp`), path.join(dir, name));
}

export function createMailer(settings: MailSettings): Mailer {
  const log = settings.logger ?? defaultLogger;
  let transport: Transporter | undefined;
  return {
    async send(message) {
      if (!settings.smtpUrl) {
        log.info(
          { mail: { to: message.to, subject: message.subject, link: message.link } },
          `Mail not sent (SMTP_URL is not set): "${message.subject}" for ${message.to}. Link: ${message.link ?? "(none)"}`,
        );
        if (settings.mailDir) await keepInDir(settings.mailDir, message);
        return "logged";
      }
      transport ??= createTransport(settings.smtpUrl);
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
      return "smtp";
    },
  };
}

let shared: Mailer | undefined;

/** The process's mailer, from SMTP_URL and MAIL_FROM. */
export const mailer = (): Mailer => (shared ??= createMailer(mailSettings()));

/**
 * Sends without making the caller wait or fail: a request's answer must not depend on whether, or
 * how fast, a mail went out (that would tell an account exists). Failures are logged without the
 * message's link.
 */
export function sendInBackground(message: MailMessage, via: Mailer = mailer()): void {
  via.send(message).catch((err: unknown) => {
    defaultLogger.error(
      { mail: { to: message.to, subject: message.subject }, err: err instanceof Error ? err.message : String(err) },
      "sending a mail failed",
    );
  });
}
