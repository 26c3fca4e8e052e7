// Issue 13, accounts: the public account flows (sign-up, email verification, password reset) and
// their attacks, on a second server started here with SIGNUP_ENABLED=1 that sends its mail over SMTP
// to a server this spec runs on 127.0.0.1. Shapes come from the reference's controllers, serializers
// and console code, cited beside each assertion. The main server's side is multiwoven-accounts.spec.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { Client } from "pg";
import {
  ADMIN,
  ISO_TIME,
  bearer,
  clientAddress as address,
  expectError,
  loginAs as tokenFor,
  uniqueSuffix,
  withoutId,
} from "../support/api";
import { startSecondServer, type SecondServer } from "../support/second-server";
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from "../support/smtp";

test.describe.configure({ timeout: 120_000 });

/** Passwords of 8+ characters a strength estimator scores as trivial, and why (lib/auth/password-policy.ts). */
const WEAK_PASSWORDS: [string, RegExp][] = [
  ["aaaaaaaa", /repeats one character/],
  ["12341234", /repeats a short group/],
  ["asdfghjkl;", /row of keys on the keyboard/],
  ["1qaz2wsx3edc", /commonly used password/],
];

test.describe("13.14 account flows on a server with sign-up on and mail over SMTP", () => {
  const CONSOLE = "https://console.example.test";
  let server: SecondServer | undefined;
  let smtp: SmtpCapture;
  let api: APIRequestContext;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    smtp = await startSmtpCapture();
    server = await startSecondServer({
      env: { SIGNUP_ENABLED: "1", SMTP_URL: smtp.url, CONSOLE_URL: CONSOLE, MAIL_FROM: "Datasync <sync@example.test>" },
      dataDir: ".data/e2e-accounts",
      waitSeconds: 280,
    });
    api = await playwrightRequest.newContext({ baseURL: server.base });
  });
  test.afterAll(async () => {
    await api?.dispose();
    server?.stop();
    await smtp?.close();
  });

  /** The server's database, to age a token as time would (no endpoint can). */
  async function database(company: string): Promise<Client> {
    const admin = process.env.TEST_DATABASE_URL;
    if (!admin) {
      const state = JSON.parse(readFileSync(path.resolve(".data/e2e-accounts/embedded-postgres.json"), "utf8")) as { password: string };
      const client = new Client({ host: "127.0.0.1", port: server?.embeddedPgPort, user: "postgres", password: state.password, database: "datasync" });
      await client.connect();
      return client;
    }
    const cluster = new Client({ connectionString: admin });
    await cluster.connect();
    const { rows } = await cluster.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'ds_e2e_%'");
    await cluster.end();
    for (const { datname } of rows) {
      const url = new URL(admin);
      url.pathname = `/${datname}`;
      const client = new Client({ connectionString: url.toString() });
      try {
        await client.connect();
        if ((await client.query("SELECT 1 FROM workspaces WHERE name = $1", [company])).rowCount) return client;
      } catch {
        // a database being created or dropped by another server
      }
      await client.end().catch(() => undefined);
    }
    throw new Error(`no database holds workspace ${company}`);
  }

  const post = (url: string, data: unknown, from = address()) =>
    api.post(url, { data, headers: { "X-Forwarded-For": from } });
  const tokenOf = (mail: CapturedMail, name: string) => new URL(mail.link!).searchParams.get(name)!;
  const login = (email: string, password: string) => api.post("/api/v1/login", { data: { email, password } });

  /** Signs up, verifies through the mailed link, and returns the new user's session token. */
  async function verifiedUser(email: string, password: string, company = `Co ${uniqueSuffix()}`): Promise<string> {
    const res = await post("/api/v1/signup", { name: "Pat", email, password, password_confirmation: password, company_name: company });
    expect(res.status(), await res.text()).toBe(201);
    const mail = await smtp.waitFor(email, (m) => m.link?.includes("/verify-user") ?? false);
    const ok = await api.get(`/api/v1/verify_user?confirmation_token=${encodeURIComponent(tokenOf(mail, "confirmation_token"))}`);
    expect(ok.status(), await ok.text()).toBe(200);
    return tokenFor(api, email, password);
  }

  test("13.14 signup → verification mail → verify_user → sign in; unverified sign-in refused; token single use", async () => {
    const email = `new-${uniqueSuffix()}@example.com`;
    const password = `pw-${uniqueSuffix()}-long`;
    const company = `Acme ${uniqueSuffix()}`;
    // ui/src/services/authentication.ts SignUpPayload: email, name, company_name, password, password_confirmation.
    const res = await post("/api/v1/signup", { name: "Pat", email, password, password_confirmation: password, company_name: company });
    expect(res.status(), await res.text()).toBe(201);
    // ui/src/views/Authentication/SignUp/SignUp.tsx checks data.attributes; SignUpResponse: {created_at, email, name}.
    const body = await res.json();
    expect(body.data).toMatchObject({ type: "users", attributes: { name: "Pat", email, email_verification_enabled: true } });
    expect(body.data.attributes.created_at).toMatch(ISO_TIME);

    // server/app/interactors/authentication/login.rb: a right password on an unverified account is a 401 that says so.
    const early = await expectError(await login(email, password), 401, "unauthorized");
    expect(early.message).toMatch(/not verified/);
    const wrong = await expectError(await login(email, "a-wrong-password"), 401, "unauthorized");
    expect(wrong.message).not.toMatch(/verif/);

    const mail = await smtp.waitFor(email);
    expect(mail.from).toBe("sync@example.test");
    // server/app/views/devise/mailer/confirmation_instructions.html.erb → ui route /verify-user?confirmation_token=&email=.
    const link = new URL(mail.link!);
    expect(`${link.origin}${link.pathname}`).toBe(`${CONSOLE}/verify-user`);
    expect(link.searchParams.get("email")).toBe(email);
    const token = tokenOf(mail, "confirmation_token");
    expect(token.length).toBeGreaterThanOrEqual(40);

    const verified = await api.get(`/api/v1/verify_user?confirmation_token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`);
    expect(verified.status(), await verified.text()).toBe(200);
    expect((await verified.json()).data).toMatchObject({ type: "message", attributes: { message: expect.any(String) } });
    await expectError(await api.get(`/api/v1/verify_user?confirmation_token=${encodeURIComponent(token)}`), 422, "validation_failed");

    const session = await tokenFor(api, email, password);
    const mine = (await (await api.get("/api/v1/workspaces", { headers: bearer(session, "0") })).json()).data;
    expect(mine).toHaveLength(1);
    expect(mine[0].attributes).toMatchObject({ name: company, role_name: "Admin", members_count: 1 });
    // Nothing of anybody else's: the seeded admin's workspace is not among them.
    const admin = await tokenFor(api, ADMIN.email, ADMIN.password);
    const adminWs = (await (await api.get("/api/v1/workspaces", { headers: bearer(admin) })).json()).data[0].id;
    await expectError(await api.get(`/api/v1/workspaces/${adminWs}`, { headers: bearer(session) }), 404, "not_found");
  });

  test("13.14 signup rules: password policy and confirmation apply", async () => {
    const email = `rules-${uniqueSuffix()}@example.com`;
    const common = await expectError(
      await post("/api/v1/signup", { name: "R", email, password: "password123", password_confirmation: "password123" }),
      422,
      "validation_failed",
    );
    expect(common.message).toMatch(/too easy to guess/);
    // Passwords a strength estimate scores as trivial (a repeat, a sequence, a keyboard row), each
    // from another address (sign-up counts mails per address named): 422 saying what would help.
    for (const [weak, why] of WEAK_PASSWORDS) {
      const refused = await expectError(
        await post("/api/v1/signup", { name: "R", email: `weak-${uniqueSuffix()}@example.com`, password: weak, password_confirmation: weak }),
        422,
        "validation_failed",
      );
      expect(refused.errors[0].source, weak).toEqual({ pointer: "/password" });
      expect(refused.errors[0].detail, weak).toMatch(why);
      expect(refused.errors[0].detail, weak).toMatch(/make it stronger with a few uncommon words/);
    }
    const mismatch = await expectError(
      await post("/api/v1/signup", { name: "R", email, password: "a-long-password-1", password_confirmation: "a-long-password-2" }),
      422,
      "validation_failed",
    );
    expect(mismatch.message).toMatch(/password_confirmation/);
    await expectError(await post("/api/v1/signup", { name: "R", email, password: "short", password_confirmation: "short" }), 422, "validation_failed");
    await expectError(await login(email, "a-long-password-1"), 401, "unauthorized");
  });

  test("13.14 signup with an address that has an account changes nothing and answers like a new one", async () => {
    const admin = await tokenFor(api, ADMIN.email, ADMIN.password);
    const adminWs = Number((await (await api.get("/api/v1/workspaces", { headers: bearer(admin) })).json()).data[0].id);
    // A person invited by an Admin (lib/services/accounts/invitations.ts), who accepted and chose their password.
    const invited = `invited-${uniqueSuffix()}@example.com`;
    const roles = (await (await api.get("/enterprise/api/v1/roles", { headers: bearer(admin, String(adminWs)) })).json()).data;
    const viewerRole = Number(roles.find((r: { attributes: { role_name: string } }) => r.attributes.role_name === "Viewer").id);
    const added = await api.post(`/api/v1/workspaces/${adminWs}/members`, {
      headers: bearer(admin, String(adminWs)),
      data: { member: { email: invited, name: "Invited", role_id: viewerRole } },
    });
    expect(added.status(), await added.text()).toBe(201);
    const invitation = new URL((await smtp.waitFor(invited, (m) => m.link?.includes("/accept-invitation?") ?? false)).link!);
    expect(invitation.origin).toBe(CONSOLE);
    const accepted = await post("/api/v1/accept_invitation", {
      invitation_token: invitation.searchParams.get("invitation_token"),
      password: "initial-password-1",
      password_confirmation: "initial-password-1",
    });
    expect(accepted.status(), await accepted.text()).toBe(200);

    const fresh = `fresh-${uniqueSuffix()}@example.com`;
    const attempt = (email: string) =>
      post("/api/v1/signup", { name: "Mallory", email, password: "mallory-password-1", password_confirmation: "mallory-password-1", company_name: "Takeover" });
    const answers: APIResponse[] = [await attempt(fresh), await attempt(invited), await attempt(ADMIN.email)];
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.map((r) => r.status())).toEqual([201, 201, 201]);
    const shape = (b: { data: { type: string; attributes: Record<string, unknown> } }) => ({
      type: b.data.type,
      keys: Object.keys(b.data.attributes).sort(),
      verification: b.data.attributes.email_verification_enabled,
      message: b.data.attributes.message,
    });
    expect(shape(bodies[1])).toEqual(shape(bodies[0]));
    expect(shape(bodies[2])).toEqual(shape(bodies[0]));

    // No takeover: the stranger's password opens nothing, the owners' still work.
    for (const email of [invited, ADMIN.email]) await expectError(await login(email, "mallory-password-1"), 401, "unauthorized");
    expect((await login(invited, "initial-password-1")).status()).toBe(200);
    expect((await login(ADMIN.email, ADMIN.password)).status()).toBe(200);
    // The invited person is still only in the workspace they were invited to: no "Takeover" workspace.
    const theirs = await tokenFor(api, invited, "initial-password-1");
    const list = (await (await api.get("/api/v1/workspaces", { headers: bearer(theirs) })).json()).data;
    expect(list.map((w: { id: string }) => Number(w.id))).toEqual([adminWs]);
    // The owner hears of it, with no verification link; the new address gets its verification.
    const notice = await smtp.waitFor(invited, (m) => !m.link?.includes("/accept-invitation?"));
    expect(notice.subject).toMatch(/already have an account/);
    expect(notice.text).not.toContain("confirmation_token");
    expect(notice.text).toContain(`${CONSOLE}/forgot-password`);
    expect((await smtp.waitFor(fresh)).link).toContain("/verify-user?");
  });

  test("13.14 forgot_password → reset_password: new password works, old sessions end, token single use", async () => {
    const email = `reset-${uniqueSuffix()}@example.com`;
    const oldSession = await verifiedUser(email, "the-old-password-1");
    const from = address();
    const unknown = `nobody-${uniqueSuffix()}@example.com`;
    const asked = [await post("/api/v1/forgot_password", { email: unknown }, from), await post("/api/v1/forgot_password", { email }, from)];
    expect(asked.map((r) => r.status())).toEqual([200, 200]);
    expect(withoutId(await asked[0].json())).toEqual(withoutId(await asked[1].json()));

    const mail = await smtp.waitFor(email, (m) => m.link?.includes("/reset-password") ?? false);
    // server/app/views/devise/mailer/reset_password_instructions.html.erb → ui route /reset-password?reset_password_token=.
    expect(mail.link!.startsWith(`${CONSOLE}/reset-password?reset_password_token=`)).toBe(true);
    expect(smtp.mails.some((m) => m.to.includes(unknown))).toBe(false);
    const token = tokenOf(mail, "reset_password_token");

    const reset = (data: Record<string, string>) => post("/api/v1/reset_password", { reset_password_token: token, ...data });
    // Wrong token, mismatch and a common password are refused, and leave the token usable.
    await expectError(
      await post("/api/v1/reset_password", { reset_password_token: `${token}x`, password: "brand-new-password-1", password_confirmation: "brand-new-password-1" }),
      422,
      "validation_failed",
    );
    await expectError(await reset({ password: "brand-new-password-1", password_confirmation: "other-password-1" }), 422, "validation_failed");
    await expectError(await reset({ password: "password123", password_confirmation: "password123" }), 422, "validation_failed");
    for (const [weak, why] of WEAK_PASSWORDS) {
      const refused = await expectError(await reset({ password: weak, password_confirmation: weak }), 422, "validation_failed");
      expect(refused.message, weak).toMatch(why);
    }
    const done = await reset({ password: "brand-new-password-1", password_confirmation: "brand-new-password-1" });
    expect(done.status(), await done.text()).toBe(200);
    // ui/src/services/authentication.ts resetPassword → MessageResponse.
    expect((await done.json()).data).toMatchObject({ type: "message", attributes: { message: expect.any(String) } });

    await expectError(await api.get("/api/v1/users/me", { headers: bearer(oldSession) }), 401, "unauthorized");
    await expectError(await login(email, "the-old-password-1"), 401, "unauthorized");
    expect((await login(email, "brand-new-password-1")).status()).toBe(200);
    const again = await expectError(await reset({ password: "another-password-1", password_confirmation: "another-password-1" }), 422, "validation_failed");
    expect(again.message).toMatch(/not valid/);
  });

  test("13.14 reset tokens expire, and die with a password change made after them", async () => {
    const company = `Expiry ${uniqueSuffix()}`;
    const email = `expiry-${uniqueSuffix()}@example.com`;
    const session = await verifiedUser(email, "first-password-1", company);
    const from = address();
    const requestLink = async (): Promise<string> => {
      const before = smtp.mails.length;
      expect((await post("/api/v1/forgot_password", { email }, from)).status()).toBe(200);
      const mail = await smtp.waitFor(email, (m) => smtp.mails.indexOf(m) >= before && (m.link?.includes("/reset-password") ?? false));
      return tokenOf(mail, "reset_password_token");
    };
    const use = (token: string) =>
      post("/api/v1/reset_password", { reset_password_token: token, password: "second-password-1", password_confirmation: "second-password-1" });

    // An hour later (aged in the database, as no endpoint can): expired.
    const expiring = await requestLink();
    const db = await database(company);
    try {
      const aged = await db.query(
        "UPDATE account_tokens SET expires_at = now() - interval '1 minute' WHERE purpose = 'reset_password' AND user_id = (SELECT id FROM users WHERE email = $1)",
        [email],
      );
      expect(aged.rowCount).toBe(1);
      // Only a hash is stored: the mailed token is nowhere in the table.
      const stored = await db.query<{ token_hash: string }>("SELECT token_hash FROM account_tokens");
      expect(JSON.stringify(stored.rows)).not.toContain(expiring);
    } finally {
      await db.end();
    }
    const expired = await expectError(await use(expiring), 422, "validation_failed");
    expect(expired.message).toMatch(/expired/);

    // A newer link replaces the older one, and a password change voids it.
    const older = await requestLink();
    const newer = await requestLink();
    await expectError(await use(older), 422, "validation_failed");
    const changed = await api.put("/api/v1/users/me/password", {
      headers: bearer(session),
      data: { current_password: "first-password-1", password: "changed-password-1" },
    });
    expect(changed.status(), await changed.text()).toBe(200);
    await expectError(await use(newer), 422, "validation_failed");
    expect((await login(email, "changed-password-1")).status()).toBe(200);
  });

  test("13.14 resend_verification mails a new link to an unverified account only, answering alike", async () => {
    const email = `resend-${uniqueSuffix()}@example.com`;
    const signed = await post("/api/v1/signup", { name: "Sam", email, password: "sam-password-1", password_confirmation: "sam-password-1" });
    expect(signed.status()).toBe(201);
    const first = await smtp.waitFor(email);
    const from = address();
    const unknown = `nobody-${uniqueSuffix()}@example.com`;
    const answers = [
      await post("/api/v1/resend_verification", { email }, from),
      await post("/api/v1/resend_verification", { email: unknown }, from),
      await post("/api/v1/resend_verification", { email: ADMIN.email }, from),
    ];
    expect(answers.map((r) => r.status())).toEqual([200, 200, 200]);
    const bodies = await Promise.all(answers.map(async (r) => withoutId(await r.json())));
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    const second = await smtp.waitFor(email, (m) => m !== first);
    // The first link was replaced by the second.
    await expectError(await api.get(`/api/v1/verify_user?confirmation_token=${encodeURIComponent(tokenOf(first, "confirmation_token"))}`), 422, "validation_failed");
    expect((await api.get(`/api/v1/verify_user?confirmation_token=${encodeURIComponent(tokenOf(second, "confirmation_token"))}`)).status()).toBe(200);
    expect((await login(email, "sam-password-1")).status()).toBe(200);
    expect(smtp.mails.some((m) => m.to.includes(unknown) || (m.to.includes(ADMIN.email) && m.subject.includes("Verify")))).toBe(false);
  });
});
