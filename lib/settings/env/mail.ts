// Mail and the alerts sent by it. Part of envSchema (lib/settings/env.ts), in its order: the README
// lists them so.
import { integer, text, textWithDefault, urlOf } from "./kinds";

export const mailVariables = {
  // Mail
  SMTP_URL: urlOf(
    ["smtp:", "smtps:"],
    "an smtp:// or smtps:// URL",
    "mail relay for password reset and verification mails, e.g. `smtps://user:pass@smtp.example.com:465` or `smtp://host:587?requireTLS=true` (nodemailer URL); unset = mails are not sent and each mail's link is logged at info level instead",
  ),
  CONSOLE_URL: urlOf(
    ["http:", "https:"],
    "an http(s):// URL",
    "the console that links in mails open (`/reset-password`, `/verify-user`: this server's console or the reference console); **required with `SMTP_URL`** (the server refuses to start without it), so no link depends on a request's `Host` header",
    "the request's address",
  ),
  MAIL_FROM: textWithDefault("Datasync <no-reply@localhost>", "sender of those mails"),
  MAIL_DIR: text(
    "without `SMTP_URL`: also write each mail (its text and link) as a JSON file into this directory, for development and tests; its files hold live single-use links (invitations, resets), so keep it private",
  ),
  // Alerts (docs/alerts.md)
  ALERT_SWEEP_SECONDS: integer(
    1,
    60,
    "how often the scheduler checks the alert rules that time alone can break (a sync without a successful run for too long, a run running too long), seconds; email alerts go out through `SMTP_URL` (unset: each message is logged and listed in the console's alert events)",
  ),
  ALERT_HTTP_TIMEOUT_MS: integer(1, 10000, "how long a Slack or webhook alert channel may take to answer, ms"),
  ALERT_MAX_EMAIL_CHANNELS: integer(1, 10, "email alert channels one workspace may have; beyond it, 409"),
  ALERT_MAX_RECIPIENTS_PER_CHANNEL: integer(1, 20, "addresses one email alert channel may name (at most 1000); beyond it, 422"),
  ALERT_MAX_MAILS_PER_HOUR: integer(
    1,
    200,
    "alert mails (messages × recipients, test messages included) one workspace may send per hour; beyond it each message is recorded as `suppressed` on its alert event, not mailed",
  ),
  ALERT_MAX_CONFIRMATIONS_PER_HOUR: integer(
    1,
    20,
    "confirmation mails one workspace may send per hour to alert recipients that are not its members (each address also gets at most one a day from a workspace, and 3 a day from all workspaces); the others stay pending and are mailed when their channel is saved again",
  ),
};
