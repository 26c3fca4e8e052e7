// Issue 13, accounts: the Workspace-Id header as the reference console sends it, workspaces in the
// reference's body and response shapes, logout's {data}, and the public account endpoints (sign-up,
// password reset, email verification) with their attacks. Shapes come from the reference's
// controllers, serializers and console code, cited beside each assertion.
// Sign-up is off on the main test server (the secure default); a second server started here has
// SIGNUP_ENABLED=1 and sends its mail over SMTP to a server this spec runs on 127.0.0.1.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { Client } from "pg";
import {
  ADMIN,
  ISO_TIME,
  adminApi,
  expectError,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  type TestWorkspace,
} from "../support/api";
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from "../support/smtp";

test.describe.configure({ timeout: 120_000 });

const bearer = (token: string, workspaceId?: string) => ({
  Authorization: `Bearer ${token}`,
  ...(workspaceId !== undefined ? { "Workspace-Id": workspaceId } : {}),
});
/** A client address of its own per test (the test servers trust X-Forwarded-For), so throttles do not meet. */
const address = () => `198.18.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
const withoutId = (body: { data: { id: string } }) => ({ ...body, data: { ...body.data, id: "" } });

async function tokenFor(request: APIRequestContext, email: string, password: string): Promise<string> {
  const res = await request.post("/api/v1/login", { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes.token as string;
}

test.describe("13.1 Workspace-Id as the reference console sends it", () => {
  let ws: TestWorkspace;
  test.beforeAll(async ({ request }) => {
    ws = await newWorkspace(request);
  });

  test("13.1 GET /workspaces and /users/me work with Workspace-Id 0, none, and a foreign id, revealing nothing", async ({
    request,
  }) => {
    // ui/src/stores/index.ts starts with workspaceId 0; ui/src/services/axios.ts sends it as Workspace-Id.
    const member = await memberWithRole(request, ws, "Viewer");
    const token = member.api.session.token;
    const foreign = await newWorkspace(request); // exists, and the member is not in it
    const answers: Record<string, { workspaces: unknown; me: unknown }> = {};
    for (const header of [undefined, "0", String(foreign.id), "999999999"]) {
      const list = await request.get("/api/v1/workspaces", { headers: bearer(token, header) });
      expect(list.status(), `workspaces with ${header}`).toBe(200);
      const me = await request.get("/api/v1/users/me", { headers: bearer(token, header) });
      expect(me.status(), `users/me with ${header}`).toBe(200);
      answers[String(header)] = { workspaces: (await list.json()).data, me: (await me.json()).data };
    }
    // The same answer whatever the header: a foreign workspace is not even acknowledged.
    for (const key of ["0", String(foreign.id), "999999999"]) expect(answers[key]).toEqual(answers.undefined);
    const listed = answers.undefined.workspaces as { id: string; attributes: { name: string } }[];
    expect(listed.map((w) => Number(w.id))).toEqual([ws.id]);
    const me = answers.undefined.me as { attributes: { workspaces: { id: number }[] } };
    expect(me.attributes.workspaces.map((w) => w.id)).toEqual([ws.id]);
    expect((answers.undefined.me as { attributes: { workspace_id: number } }).attributes.workspace_id).toBe(ws.id);
    // A malformed header is still a clear 400.
    await expectError(
      await request.get("/api/v1/workspaces", { headers: bearer(token, "abc") }),
      400,
      "bad_request",
    );
  });

  test("13.1 Workspace-Id 0 on a workspace-scoped endpoint is the default workspace; a foreign id stays 404", async ({
    request,
  }) => {
    const member = await memberWithRole(request, ws, "Admin");
    const token = member.api.session.token;
    const created = await request.post("/api/v1/api_tokens", {
      headers: bearer(token, "0"),
      data: { api_token: { name: `zero ${uniqueSuffix()}` } },
    });
    expect(created.status(), await created.text()).toBe(201);
    const id = (await created.json()).data.id;
    const zero = await request.get("/api/v1/api_tokens", { headers: bearer(token, "0") });
    const none = await request.get("/api/v1/api_tokens", { headers: bearer(token, String(ws.id)) });
    expect(zero.status()).toBe(200);
    const listed = (await zero.json()).data as { id: string; attributes: { workspace_id: number } }[];
    expect(listed).toEqual((await none.json()).data);
    expect(listed.find((t) => t.id === id)?.attributes.workspace_id).toBe(ws.id);
    const foreign = await newWorkspace(request);
    await expectError(
      await request.get("/api/v1/api_tokens", { headers: bearer(token, String(foreign.id)) }),
      404,
      "not_found",
    );
  });
});

test.describe("13.13 workspaces in the reference's shapes", () => {
  test("13.13 POST /workspaces takes the flat body the console sends and the nested one; the new fields show", async ({
    request,
  }) => {
    const root = await adminApi(request);
    // ui/src/views/Sidebar/Workspace/CreateWorkspace.tsx posts {name, description, organization_id, region} flat.
    const orgId = (await (await root.get("/api/v1/workspaces")).json()).data[0].attributes.organization_id;
    expect(orgId).toBe(1);
    const flat = await root.post("/api/v1/workspaces", {
      name: `Flat ${uniqueSuffix()}`,
      description: "Made the console's way",
      organization_id: orgId,
      region: "United States (aws-us-east-1)",
    });
    expect(flat.status(), await flat.text()).toBe(201);
    const made = (await flat.json()).data;
    expect(made.type).toBe("workspaces");
    // server/app/serializers/workspace_serializer.rb's attributes, with this API's own beside them.
    expect(made.attributes).toMatchObject({
      description: "Made the console's way",
      region: "United States (aws-us-east-1)",
      status: "active",
      organization_id: 1,
      organization_name: expect.any(String),
      members_count: 1,
      role_name: "Admin",
      workspace_logo_url: null,
      organization_logo_url: null,
      slug: expect.any(String),
    });
    expect(made.attributes.created_at).toMatch(ISO_TIME);
    expect(made.attributes).not.toHaveProperty("api_key");

    const nested = await root.post("/api/v1/workspaces", { workspace: { name: `Nested ${uniqueSuffix()}`, region: "eu" } });
    expect(nested.status(), await nested.text()).toBe(201);
    expect((await nested.json()).data.attributes).toMatchObject({ region: "eu", description: null });

    const unknownOrg = await expectError(
      await root.post("/api/v1/workspaces", { name: "Elsewhere", organization_id: 2 }),
      422,
      "validation_failed",
    );
    expect(unknownOrg.message).toMatch(/organization_id/);
    await expectError(await root.post("/api/v1/workspaces", { description: "no name" }), 422, "validation_failed");

    // ui/src/services/settings.ts reads the list's organization_name, members_count, description.
    const listed = (await (await root.get("/api/v1/workspaces?per_page=100")).json()).data as {
      id: string;
      attributes: Record<string, unknown>;
    }[];
    const shown = listed.find((w) => w.id === made.id)!;
    expect(shown.attributes).toMatchObject({ description: "Made the console's way", organization_id: 1, members_count: 1 });
  });

  test("13.13 PUT /workspaces/{id} takes flat and nested bodies; only what is sent changes", async ({ request }) => {
    const ws = await newWorkspace(request);
    // ui/src/views/Settings/Workspace.tsx puts {name, description, organization_id} flat.
    const flat = await ws.admin.put(`/api/v1/workspaces/${ws.id}`, {
      name: "Renamed flat",
      description: "About it",
      organization_id: 1,
    });
    expect(flat.status(), await flat.text()).toBe(200);
    expect((await flat.json()).data.attributes).toMatchObject({ name: "Renamed flat", description: "About it", region: null });
    const nested = await ws.admin.put(`/api/v1/workspaces/${ws.id}`, { workspace: { region: "eu-west" } });
    expect(nested.status(), await nested.text()).toBe(200);
    expect((await nested.json()).data.attributes).toMatchObject({
      name: "Renamed flat",
      description: "About it",
      region: "eu-west",
    });
    const cleared = await ws.admin.put(`/api/v1/workspaces/${ws.id}`, { workspace: { description: "" } });
    expect((await cleared.json()).data.attributes.description).toBeNull();
    await expectError(await ws.admin.put(`/api/v1/workspaces/${ws.id}`, {}), 422, "validation_failed");
    // Still checked in the workspace of the path: a Viewer may not change it.
    const viewer = await memberWithRole(request, ws, "Viewer");
    await expectError(await viewer.api.put(`/api/v1/workspaces/${ws.id}`, { description: "mine" }), 403, "forbidden");
  });

  test("13.13 DELETE /logout answers {data: message resource} beside message", async ({ request }) => {
    const ws = await newWorkspace(request);
    const member = await memberWithRole(request, ws, "Member");
    // server/app/controllers/api/v1/auth_controller.rb logout: {data: {type: "message", id, attributes: {message}}}.
    const out = await request.delete("/api/v1/logout", { headers: bearer(member.api.session.token, "0") });
    expect(out.status()).toBe(200);
    const body = await out.json();
    expect(body).toEqual({
      data: { type: "message", id: expect.any(String), attributes: { message: expect.any(String) } },
      message: body.data.attributes.message,
    });
    await expectError(await member.api.get("/api/v1/users/me"), 401, "unauthorized");
  });
});

test.describe("13.14 account endpoints on a server with sign-up off (the default)", () => {
  test("13.14 POST /signup is 403 naming SIGNUP_ENABLED, whatever the body", async ({ request }) => {
    for (const data of [
      {},
      { name: "A", email: `a-${uniqueSuffix()}@example.com`, password: "a-long-password-1", password_confirmation: "a-long-password-1", company_name: "A" },
    ]) {
      const body = await expectError(
        await request.post("/api/v1/signup", { data, headers: { "X-Forwarded-For": address() } }),
        403,
        "forbidden",
      );
      expect(body.message).toMatch(/SIGNUP_ENABLED/);
    }
  });

  test("13.14 forgot_password answers the same for an unknown address, and throttles per address", async ({ request }) => {
    const someone = await memberWithRole(request, await newWorkspace(request), "Viewer");
    const from = address();
    const ask = (email: string) => request.post("/api/v1/forgot_password", { data: { email }, headers: { "X-Forwarded-For": from } });
    const known = await ask(someone.email);
    const unknown = await ask(`nobody-${uniqueSuffix()}@example.com`);
    expect(known.status()).toBe(200);
    expect(unknown.status()).toBe(200);
    // ui/src/services/authentication.ts: MessageResponse {type, id, attributes: {message}}.
    const [a, b] = [await known.json(), await unknown.json()];
    expect(a.data).toMatchObject({ type: "message", attributes: { message: expect.any(String) } });
    expect(withoutId(a)).toEqual(withoutId(b));
    expect(a.data.id).not.toBe("1");
    await expectError(await ask("not-an-email"), 422, "validation_failed");
    // Five requests per address and window, counted alike for any address (so a 429 tells nothing).
    const target = `nobody-${uniqueSuffix()}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await request.post("/api/v1/forgot_password", {
        data: { email: target },
        headers: { "X-Forwarded-For": address() },
      });
      statuses.push(res.status());
      if (res.status() === 429) expect(Number(res.headers()["retry-after"])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  test("13.14 this server's console answers the links' paths without a session", async ({ request }) => {
    for (const page of ["/forgot-password", `/reset-password?reset_password_token=${"x".repeat(43)}`, "/verify-user"]) {
      const res = await request.get(page, { maxRedirects: 0 });
      expect(res.status(), page).toBe(200);
      expect(res.headers()["content-type"]).toMatch(/text\/html/);
    }
    // The reference console's sign-in path, which the "already registered" mail links to.
    const signIn = await request.get("/sign-in", { maxRedirects: 0 });
    expect(signIn.status()).toBe(307);
    expect(signIn.headers().location).toMatch(/\/login$/);
  });

  test("13.14 reset_password and verify_user refuse unknown tokens with 422", async ({ request }) => {
    const headers = { "X-Forwarded-For": address() };
    const reset = await expectError(
      await request.post("/api/v1/reset_password", {
        headers,
        data: { reset_password_token: "x".repeat(43), password: "a-fine-new-password", password_confirmation: "a-fine-new-password" },
      }),
      422,
      "validation_failed",
    );
    expect(reset.message).toMatch(/not valid/);
    await expectError(await request.get(`/api/v1/verify_user?confirmation_token=${"y".repeat(43)}`, { headers }), 422, "validation_failed");
    await expectError(await request.get("/api/v1/verify_user", { headers }), 400, "bad_request");
  });
});

test.describe("13.14 account flows on a server with sign-up on and mail over SMTP", () => {
  const port = Number(process.env.E2E_PORT ?? 3100) + 300;
  const base = `http://127.0.0.1:${port}`;
  const CONSOLE = "https://console.example.test";
  let server: ChildProcess | undefined;
  let smtp: SmtpCapture;
  let api: APIRequestContext;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    smtp = await startSmtpCapture();
    server = spawn("npx", ["tsx", "--tsconfig", "tsconfig.node.json", "scripts/e2e-server.ts"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        RUN_WORKER: "0",
        SIGNUP_ENABLED: "1",
        SMTP_URL: smtp.url,
        CONSOLE_URL: CONSOLE,
        MAIL_FROM: "Datasync <sync@example.test>",
        // Without TEST_DATABASE_URL it runs its own embedded PostgreSQL: not the main server's files or port.
        E2E_DATA_DIR: ".data/e2e-accounts",
        EMBEDDED_PG_PORT: String(54349 + 300),
      },
      stdio: "ignore",
      detached: true,
    });
    for (let i = 0; i < 280; i++) {
      if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break;
      if (i === 279) throw new Error(`the sign-up server on ${port} did not come up`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    api = await playwrightRequest.newContext({ baseURL: base });
  });
  test.afterAll(async () => {
    await api?.dispose();
    if (server?.pid) process.kill(-server.pid, "SIGTERM");
    await smtp?.close();
  });

  /** The server's database, to age a token as time would (no endpoint can). */
  async function database(company: string): Promise<Client> {
    const admin = process.env.TEST_DATABASE_URL;
    if (!admin) {
      const state = JSON.parse(readFileSync(path.resolve(".data/e2e-accounts/embedded-postgres.json"), "utf8")) as { password: string };
      const client = new Client({ host: "127.0.0.1", port: 54349 + 300, user: "postgres", password: state.password, database: "datasync" });
      await client.connect();
      return client;
    }
    const server = new Client({ connectionString: admin });
    await server.connect();
    const { rows } = await server.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'ds_e2e_%'");
    await server.end();
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
    expect(common.message).toMatch(/common/);
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
    // A person invited by an Admin (lib/services/members.ts): the Admin chose the initial password.
    const invited = `invited-${uniqueSuffix()}@example.com`;
    const roles = (await (await api.get("/enterprise/api/v1/roles", { headers: bearer(admin, String(adminWs)) })).json()).data;
    const viewerRole = Number(roles.find((r: { attributes: { role_name: string } }) => r.attributes.role_name === "Viewer").id);
    const added = await api.post(`/api/v1/workspaces/${adminWs}/members`, {
      headers: bearer(admin, String(adminWs)),
      data: { member: { email: invited, name: "Invited", password: "initial-password-1", role_id: viewerRole } },
    });
    expect(added.status(), await added.text()).toBe(201);

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
    const notice = await smtp.waitFor(invited);
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
