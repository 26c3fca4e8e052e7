// Where the links in account mails (password reset, email verification) point: CONSOLE_URL, the
// console people use (this server's own, or the reference console, whose routes the links follow).
// Without it, the request's own public URL serves, but only while mails are logged rather than sent:
// a mail built from the Host header a client chose would carry a victim's reset token to the
// client's server (password-reset poisoning), so sending mail requires CONSOLE_URL.
import { ServiceUnavailable } from "@/lib/errors";

const MISSING =
  "SMTP_URL is set but CONSOLE_URL is not: set CONSOLE_URL to the console's address (e.g. https://sync.example.com), so links in mails do not depend on the Host header of a request.";

/** CONSOLE_URL without a trailing slash; undefined when unset. Throws on a value that is not an http(s) URL. */
export function configuredConsoleUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.CONSOLE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`CONSOLE_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`CONSOLE_URL must be http(s): ${raw}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Throws when mail would go out without CONSOLE_URL (or with a malformed one). Called at startup. */
export function assertMailSettings(env: NodeJS.ProcessEnv = process.env): void {
  const consoleUrl = configuredConsoleUrl(env);
  if (env.SMTP_URL?.trim() && !consoleUrl) throw new Error(MISSING);
}

/** The base of links in mails, for a request that arrived at `requestUrl` (its public URL). */
export function consoleBase(requestUrl: URL): string {
  const configured = configuredConsoleUrl();
  if (configured) return configured;
  if (process.env.SMTP_URL?.trim()) throw new ServiceUnavailable(`Mail is misconfigured. ${MISSING}`);
  return requestUrl.origin;
}
