// API tokens over real HTTP: shown once, listed without the secret, narrowed, confined, revocable, expiring.
import { expect, test } from "@playwright/test";
import {
  Api,
  ISO_TIME,
  apiTokenFor,
  expectError,
  fieldErrors,
  memberWithRole,
  newWorkspace,
  type TestWorkspace,
} from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
});

test("POST /api/v1/api_tokens shows the token once; the list never does", async () => {
  const res = await ws.admin.post("/api/v1/api_tokens", {
    api_token: { name: "CI deploys", role_id: ws.roles.Viewer },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { data } = await res.json();
  expect(data).toMatchObject({
    type: "api_tokens",
    attributes: { name: "CI deploys", role_id: ws.roles.Viewer, role_name: "Viewer", expires_at: null },
  });
  expect(typeof data.id).toBe("string");
  expect(data.attributes.token.split(".")).toHaveLength(3);
  expect(data.attributes.created_at).toMatch(ISO_TIME);
  expect(Object.keys(data.attributes).sort()).toEqual([
    "created_at",
    "expires_at",
    "name",
    "role_id",
    "role_name",
    "token",
  ]);

  const list = await (await ws.admin.get("/api/v1/api_tokens")).json();
  expect(Object.keys(list).sort()).toEqual(["data", "links", "meta"]);
  const entry = list.data.find((t: { id: string }) => t.id === data.id);
  expect(entry.attributes).toMatchObject({
    name: "CI deploys",
    role_name: "Viewer",
    last_used_at: null,
    expires_at: null,
  });
  expect(entry.attributes.created_at).toMatch(ISO_TIME);
  expect(JSON.stringify(list)).not.toContain(data.attributes.token);
  expect(entry.attributes.token).toBeUndefined();

  // Using it records last_used_at and acts with the narrowed role.
  const tokenApi = new Api({ token: data.attributes.token });
  const me = await (await tokenApi.get("/api/v1/users/me")).json();
  expect(me.data.attributes.workspace_id).toBe(ws.id);
  expect(me.data.attributes.role.policies.permissions.connector).toEqual({
    create: false,
    read: true,
    update: false,
    delete: false,
  });
  await expectError(
    await tokenApi.post("/api/v1/api_tokens", { api_token: { name: "x" } }),
    403,
    "forbidden",
  );
  await expect
    .poll(async () => {
      const again = await (await ws.admin.get("/api/v1/api_tokens")).json();
      return again.data.find((t: { id: string }) => t.id === data.id).attributes.last_used_at;
    })
    .toMatch(ISO_TIME);
});

test("validation: name required, role must exist here and not exceed the creator's, expiry in the future", async ({
  request,
}) => {
  const body = await expectError(
    await ws.admin.post("/api/v1/api_tokens", { api_token: { role_id: "x" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(body)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ path: "api_token.name" }),
      expect.objectContaining({ path: "api_token.role_id" }),
    ]),
  );
  await expectError(await ws.admin.post("/api/v1/api_tokens", {}), 422, "validation_failed");
  const past = await expectError(
    await ws.admin.post("/api/v1/api_tokens", {
      api_token: { name: "old", expires_at: "2001-01-01T00:00:00Z" },
    }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(past)).toEqual([{ path: "api_token.expires_at", message: "must be in the future" }]);
  const unknown = await expectError(
    await ws.admin.post("/api/v1/api_tokens", { api_token: { name: "r", role_id: 99999999 } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(unknown)).toEqual([
    { path: "api_token.role_id", message: "role 99999999 does not exist in this workspace" },
  ]);
  const member = await memberWithRole(request, ws, "Member");
  const up = await expectError(
    await member.api.post("/api/v1/api_tokens", { api_token: { name: "up", role_id: ws.roles.Admin } }),
    403,
    "forbidden",
  );
  expect(up.message).toMatch(/would grant permissions your own role does not have/);
});

test("a token is confined to its workspace, even for a user who belongs to others", async ({ request }) => {
  const { api } = await apiTokenFor(request, ws.admin);
  const other = await newWorkspace(request);
  const elsewhere = new Api({ token: api.session.token, workspaceId: other.id });
  await expectError(await elsewhere.get("/api/v1/connectors"), 404, "not_found");
  // users/me is a user-level call (issue 13): the token still answers for its own workspace.
  expect((await (await elsewhere.get("/api/v1/users/me")).json()).data.attributes.workspace_id).toBe(ws.id);
  await expectError(await api.get(`/api/v1/workspaces/${other.id}`), 404, "not_found");
  const list = await (await api.get("/api/v1/workspaces")).json();
  expect(list.data.map((w: { id: string }) => Number(w.id))).toEqual([ws.id]);
});

test("DELETE revokes at once (then 401), and a second DELETE is 404", async ({ request }) => {
  const { id, api } = await apiTokenFor(request, ws.admin);
  expect((await api.get("/api/v1/users/me")).status()).toBe(200);
  const del = await ws.admin.delete(`/api/v1/api_tokens/${id}`);
  expect(del.status()).toBe(204);
  expect(await del.text()).toBe("");
  await expectError(await api.get("/api/v1/users/me"), 401, "unauthorized");
  await expectError(await ws.admin.delete(`/api/v1/api_tokens/${id}`), 404, "not_found");
  await expectError(await ws.admin.delete("/api/v1/api_tokens/abc"), 400, "bad_request");
});

test("an expired token is 401", async ({ request }) => {
  const { api } = await apiTokenFor(request, ws.admin, {
    expires_at: new Date(Date.now() + 2500).toISOString(),
  });
  expect((await api.get("/api/v1/users/me")).status()).toBe(200);
  // Waits for the expiry on the server's clock, not for a fixed time.
  await expect.poll(async () => (await api.get("/api/v1/users/me")).status(), { timeout: 30_000 }).toBe(401);
  await expectError(await api.get("/api/v1/users/me"), 401, "unauthorized");
});

test("a Member sees and revokes only its own tokens; the Admin sees all", async ({ request }) => {
  const member = await memberWithRole(request, ws, "Member");
  const mine = await apiTokenFor(request, member.api, { name: "member token" });
  const admins = await apiTokenFor(request, ws.admin, { name: "admin token" });
  const memberList = await (await member.api.get("/api/v1/api_tokens")).json();
  expect(memberList.data.map((t: { attributes: { name: string } }) => t.attributes.name)).toEqual([
    "member token",
  ]);
  await expectError(await member.api.delete(`/api/v1/api_tokens/${admins.id}`), 404, "not_found");
  const adminList = await (await ws.admin.get("/api/v1/api_tokens?per_page=100")).json();
  expect(adminList.data.map((t: { id: string }) => Number(t.id))).toEqual(
    expect.arrayContaining([mine.id, admins.id]),
  );
  expect((await ws.admin.delete(`/api/v1/api_tokens/${mine.id}`)).status()).toBe(204);
});

test("Viewers may not manage API tokens", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  await expectError(await viewer.api.get("/api/v1/api_tokens"), 403, "forbidden");
  await expectError(
    await viewer.api.post("/api/v1/api_tokens", { api_token: { name: "v" } }),
    403,
    "forbidden",
  );
  await expectError(await viewer.api.delete("/api/v1/api_tokens/1"), 403, "forbidden");
});

test("a token narrowed to api_token.create mints only tokens within its own rights and expiry", async ({
  request,
}) => {
  const minterRole = await ws.admin.post("/enterprise/api/v1/roles", {
    role: {
      role_name: "Token minter",
      policies: { permissions: { api_token: { create: true, read: true } } },
    },
  });
  expect(minterRole.status(), await minterRole.text()).toBe(201);
  const minterRoleId = Number((await minterRole.json()).data.id);
  const expiry = new Date(Date.now() + 3_600_000);
  const minter = await apiTokenFor(request, ws.admin, {
    role_id: minterRoleId,
    expires_at: expiry.toISOString(),
  });
  await expectError(await minter.api.get("/api/v1/connectors"), 403, "forbidden");

  // The attack: no role_id and no expiry used to give the Admin's full role, forever.
  const res = await minter.api.post("/api/v1/api_tokens", { api_token: { name: "escape" } });
  expect(res.status(), await res.text()).toBe(201);
  const minted = (await res.json()).data;
  expect(minted.attributes).toMatchObject({
    role_id: minterRoleId,
    role_name: "Token minter",
    expires_at: expiry.toISOString(),
  });
  const mintedApi = new Api({ token: minted.attributes.token });
  await expectError(await mintedApi.get("/api/v1/connectors"), 403, "forbidden");
  await expectError(await mintedApi.get(`/api/v1/workspaces/${ws.id}/members`), 403, "forbidden");
  await expectError(
    await mintedApi.post("/enterprise/api/v1/roles", {
      role: { role_name: "x", policies: { permissions: {} } },
    }),
    403,
    "forbidden",
  );
  const me = (await (await mintedApi.get("/api/v1/users/me")).json()).data.attributes;
  expect(me.role.policies.permissions.connector).toEqual({
    create: false,
    read: false,
    update: false,
    delete: false,
  });

  // A later expiry, or none beyond its own, is refused; a wider role too.
  const later = await expectError(
    await minter.api.post("/api/v1/api_tokens", {
      api_token: { name: "later", expires_at: new Date(expiry.getTime() + 60_000).toISOString() },
    }),
    403,
    "forbidden",
  );
  expect(later.message).toBe(
    `An API token may only create tokens that expire no later than itself (${expiry.toISOString()}); send an earlier expires_at, or omit it to get the same expiry.`,
  );
  const wider = await expectError(
    await minter.api.post("/api/v1/api_tokens", { api_token: { name: "wider", role_id: ws.roles.Admin } }),
    403,
    "forbidden",
  );
  expect(wider.message).toMatch(/^The role Admin would grant permissions your own role does not have: /);
  // An earlier expiry is fine and kept as asked.
  const sooner = new Date(expiry.getTime() - 60_000).toISOString();
  const ok = await minter.api.post("/api/v1/api_tokens", {
    api_token: { name: "sooner", expires_at: sooner },
  });
  expect(ok.status(), await ok.text()).toBe(201);
  expect((await ok.json()).data.attributes.expires_at).toBe(sooner);
});
