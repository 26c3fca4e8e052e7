// Issue 13, accounts: the Workspace-Id header as the reference console sends it, workspaces in the
// reference's body and response shapes, logout's {data}, and the public account endpoints (sign-up,
// password reset, email verification) on the main test server, where sign-up is off (the secure
// default). Shapes come from the reference's controllers, serializers and console code, cited beside
// each assertion. The flows with sign-up on are in multiwoven-account-flows.spec.ts.
import { expect, test } from "@playwright/test";
import {
  ISO_TIME,
  adminApi,
  bearer,
  clientAddress as address,
  expectError,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  withoutId,
  type TestWorkspace,
} from "../support/api";

test.describe.configure({ timeout: 120_000 });

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
