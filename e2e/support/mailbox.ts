// The mails a test server did not send (no SMTP_URL): it writes each as a JSON file into MAIL_DIR
// (scripts/e2e-server.ts sets .data/e2e-mail/<port>). Tests read invitation links there the way the
// account-flow specs read them from an SMTP server (e2e/support/smtp.ts).
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect, type APIRequestContext } from "@playwright/test";
import { quoted } from "../../lib/services/notifications/alerts/subject";

export interface KeptMail {
  to: string;
  subject: string;
  text: string;
  link?: string;
}

const mailDir = (port: string | number = Number(process.env.E2E_PORT)) => path.resolve(".data/e2e-mail", String(port));

/** The newest mail to `to` matching `match`, waiting for it (mails go out after the answer). */
export async function waitForMail(
  to: string,
  match: (m: KeptMail) => boolean = () => true,
  { port, ms = 15_000 }: { port?: number; ms?: number } = {},
): Promise<KeptMail> {
  const dir = mailDir(port);
  const deadline = Date.now() + ms;
  for (;;) {
    const names = (await readdir(dir).catch(() => [] as string[])).sort().reverse();
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const mail = await readFile(path.join(dir, name), "utf8").then(
        (text) => JSON.parse(text) as KeptMail,
        () => null,
      );
      if (mail && mail.to.toLowerCase() === to.toLowerCase() && match(mail)) return mail;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} in ${dir} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The invitation link's token and whether it asks for a password (new_account=1). The subject names
 * the workspace as the product quotes workspace text (lib/services/notifications/alerts/subject.ts).
 */
export async function invitationFor(to: string, workspace?: string): Promise<{ token: string; newAccount: boolean }> {
  const mail = await waitForMail(to, (m) => m.subject.startsWith("You are invited") && (!workspace || m.subject.endsWith(` ${quoted(workspace)}`)));
  const url = new URL(mail.link!);
  return { token: url.searchParams.get("invitation_token")!, newAccount: url.searchParams.get("new_account") === "1" };
}

/**
 * Accepts `to`'s invitation (into `workspace` when named) with the account's `password`: a new
 * account chooses it, an existing one gives its own. `url` turns the API path into the address to
 * call (the console specs' url()).
 */
export async function acceptInvitation(
  request: APIRequestContext,
  to: string,
  password: string,
  { workspace, url = (p) => p }: { workspace?: string; url?: (path: string) => string } = {},
): Promise<void> {
  const { token, newAccount } = await invitationFor(to, workspace);
  // From an address of its own: the account endpoints are throttled per client address.
  const res = await request.post(url("/api/v1/accept_invitation"), {
    headers: { "X-Forwarded-For": `198.18.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}` },
    data: {
      invitation_token: token,
      password,
      ...(newAccount ? { password_confirmation: password } : {}),
    },
  });
  expect(res.status(), await res.text()).toBe(200);
}
