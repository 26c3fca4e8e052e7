// Sign-in, sign-out, GET /api/v1/users/me and login throttling over real HTTP.
import { expect, test } from "@playwright/test";
import {
  Api,
  ISO_TIME,
  expectError,
  loginAs,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  type TestWorkspace,
} from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
});

test("GET /api/v1/users/me returns the user, its role here and its workspaces", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  const res = await viewer.api.get("/api/v1/users/me");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(["data"]);
  expect(body.data).toMatchObject({ id: String(viewer.userId), type: "users" });
  const a = body.data.attributes;
  expect(a.email).toBe(viewer.email);
  expect(a.name).toBe("Viewer member");
  expect(a.created_at).toMatch(ISO_TIME);
  expect(a.updated_at).toMatch(ISO_TIME);
  expect(a.workspace_id).toBe(ws.id);
  expect(a.role).toMatchObject({ id: ws.roles.Viewer, role_name: "Viewer" });
  expect(a.role.policies.permissions.sync).toEqual({
    create: false,
    read: true,
    update: false,
    delete: false,
  });
  expect(a.workspaces).toEqual([{ id: ws.id, name: expect.any(String), role_name: "Viewer" }]);
  expect(JSON.stringify(body)).not.toMatch(/password/i);
});

test("without Workspace-Id the user's first workspace is used; a foreign one is 404 (users/me: ignored)", async ({
  request,
}) => {
  const member = await memberWithRole(request, ws, "Member");
  const bare = new Api({ token: member.api.session.token });
  expect((await (await bare.get("/api/v1/users/me")).json()).data.attributes.workspace_id).toBe(ws.id);
  const other = await newWorkspace(request);
  const foreign = new Api({ token: member.api.session.token, workspaceId: other.id });
  await expectError(await foreign.get("/api/v1/connectors"), 404, "not_found");
  // users/me is a user-level call (issue 13): a header it cannot use changes nothing.
  const me = await foreign.get("/api/v1/users/me");
  expect(me.status()).toBe(200);
  expect((await me.json()).data.attributes.workspace_id).toBe(ws.id);
  await expectError(
    await request.get("/api/v1/users/me", {
      headers: { Authorization: `Bearer ${member.api.session.token}`, "Workspace-Id": "abc" },
    }),
    400,
    "bad_request",
  );
});

test("logout revokes the session token at once", async ({ request }) => {
  const member = await memberWithRole(request, ws, "Member");
  expect((await member.api.get("/api/v1/users/me")).status()).toBe(200);
  const out = await member.api.delete("/api/v1/logout");
  expect(out.status()).toBe(200);
  await expectError(await member.api.get("/api/v1/users/me"), 401, "unauthorized");
  await expectError(
    await request.get("/api/v1/users/me", { headers: { Authorization: "Bearer not.a.jwt" } }),
    401,
    "unauthorized",
  );
});

test("ten failed sign-ins of an account from one address make that address wait, with 429 and Retry-After", async ({ request }) => {
  const victim = await memberWithRole(request, ws, "Viewer");
  const from = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  for (let i = 0; i < 10; i++) {
    const res = await request.post("/api/v1/login", {
      data: { email: victim.email, password: "wrong-password" },
      headers: { "X-Forwarded-For": from },
    });
    await expectError(res, 401, "unauthorized");
  }
  const waiting = await request.post("/api/v1/login", {
    data: { email: victim.email, password: victim.password },
    headers: { "X-Forwarded-For": from },
  });
  const body = await expectError(waiting, 429, "rate_limited");
  expect(body.message).toMatch(/^Too many failed sign-in attempts\. Try again in 15 seconds\.$/);
  const retryAfter = Number(waiting.headers()["retry-after"]);
  expect(retryAfter).toBeGreaterThan(10);
  expect(retryAfter).toBeLessThanOrEqual(15);
  // Not a lock-out: the owner signs in from elsewhere, and the existing session keeps working.
  expect((await victim.api.get("/api/v1/users/me")).status()).toBe(200);
  expect(await loginAs(request, victim.email, victim.password)).toMatch(/\./);
});

test("fifty failed sign-ins from one address leave an account one first attempt there, not a second; other addresses are unaffected", async ({ request }) => {
  const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}, 10.${Math.floor(Math.random() * 250)}.0.1`;
  for (let i = 0; i < 50; i++) {
    const res = await request.post("/api/v1/login", {
      data: { email: `guess-${uniqueSuffix()}@example.com`, password: "guess" },
      headers: { "X-Forwarded-For": address },
    });
    expect(res.status()).toBe(401);
  }
  // One guess at an account from the over-limit address is checked (a new person behind a shared
  // address gets in with the right one, docs/security.md item 12); a second is not.
  const member = await memberWithRole(request, ws, "Viewer");
  const signIn = (password: string) =>
    request.post("/api/v1/login", { data: { email: member.email, password }, headers: { "X-Forwarded-For": address } });
  expect((await signIn("not-the-password")).status()).toBe(401);
  await expectError(await signIn(member.password), 429, "rate_limited");
  expect(await loginAs(request, member.email, member.password)).toMatch(/\./);
});
