// Where the links in account mails (password reset, email verification) point: CONSOLE_URL, the
// console people use (this server's own, or the reference console, whose routes the links follow).
// Without it, the request's own public URL serves, but only while mails are logged rather than sent:
// a mail built from the Host header a client chose would carry a victim's reset token to the
// client's server (password-reset poisoning), so sending mail requires CONSOLE_URL.
import { ServiceUnavailable } from "@/lib/errors";
import { env } from "./env";

const MISSING =
  "SMTP_URL is set but CONSOLE_URL is not: set CONSOLE_URL to the console's address (e.g. https://sync.example.com), so links in mails do not depend on the Host header of a request.";

/**
 * Whether this server sends mail at all (SMTP_URL set). Without it the links of account mails
 * (resets, invitations) are only written to the log, and what people are told must say so.
 */
export const sendsMail = (): boolean => Boolean(env.SMTP_URL);

/** CONSOLE_URL without a trailing slash; undefined when unset. (The schema refuses a non-http(s) URL.) */
export function configuredConsoleUrl(): string | undefined {
  if (!env.CONSOLE_URL) return undefined;
  const url = new URL(env.CONSOLE_URL);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Throws when mail would go out without CONSOLE_URL. Called at startup. */
export function assertMailSettings(): void {
  if (env.SMTP_URL && !configuredConsoleUrl()) throw new Error(MISSING);
}

/** The base of links in mails, for a request that arrived at `requestUrl` (its public URL). */
export function consoleBase(requestUrl: URL): string {
  const configured = configuredConsoleUrl();
  if (configured) return configured;
  if (env.SMTP_URL) throw new ServiceUnavailable(`Mail is misconfigured. ${MISSING}`);
  return requestUrl.origin;
}
