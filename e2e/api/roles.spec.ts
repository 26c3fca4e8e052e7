// Roles over real HTTP: the contract's list, custom role CRUD, system roles read-only, roles in use.
import { expect, test } from "@playwright/test";
import { ISO_TIME, expectError, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request, "Roles spec");
});

const policies = { permissions: { sync: { read: true, update: true }, sync_run: { read: true } } };

test("GET /enterprise/api/v1/roles: {data: [Role]} without links, system roles first", async ({
  request,
}) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  const res = await viewer.api.get("/enterprise/api/v1/roles");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(["data"]);
  expect(
    body.data.slice(0, 3).map((r: { attributes: { role_name: string } }) => r.attributes.role_name),
  ).toEqual(["Admin", "Member", "Viewer"]);
  for (const r of body.data) {
    expect(typeof r.id).toBe("string");
    expect(r.type).toBe("roles");
    expect(typeof r.attributes.role_name).toBe("string");
    expect(typeof r.attributes.role_desc).toBe("string");
    expect(typeof r.attributes.policies.permissions).toBe("object");
    expect(r.attributes.created_at).toMatch(ISO_TIME);
    expect(r.attributes.updated_at).toMatch(ISO_TIME);
  }
  expect(body.data[0].attributes.role_desc).toBe(
    "Full permissions for all resources and ability to manage workspace.",
  );
});

test("custom role: create (201), show, update, assign, refuse delete while in use (409), delete (204)", async ({
  request,
}) => {
  const created = await ws.admin.post("/enterprise/api/v1/roles", {
    role: { role_name: "Sync operator", role_desc: "Runs syncs", policies },
  });
  expect(created.status(), await created.text()).toBe(201);
  const role = (await created.json()).data;
  expect(role.attributes).toMatchObject({
    role_name: "Sync operator",
    role_desc: "Runs syncs",
    role_type: "custom",
    workspace_id: ws.id,
  });
  expect(role.attributes.policies.permissions.sync).toEqual({
    create: false,
    read: true,
    update: true,
    delete: false,
  });
  expect(role.attributes.policies.permissions.user).toEqual({
    create: false,
    read: false,
    update: false,
    delete: false,
  });

  const shown = await (await ws.admin.get(`/enterprise/api/v1/roles/${role.id}`)).json();
  expect(shown.data.attributes.role_name).toBe("Sync operator");
  const updated = await ws.admin.put(`/enterprise/api/v1/roles/${role.id}`, {
    role: { role_desc: "Runs and reads syncs" },
  });
  expect(updated.status(), await updated.text()).toBe(200);
  expect((await updated.json()).data.attributes.role_desc).toBe("Runs and reads syncs");

  // Someone holding it acts with it.
  const operator = await memberWithRole(
    request,
    { ...ws, roles: { ...ws.roles, "Sync operator": Number(role.id) } },
    "Sync operator",
  );
  expect((await operator.api.get("/api/v1/syncs")).status()).toBe(200);
  await expectError(await operator.api.get("/api/v1/connectors"), 403, "forbidden");

  const inUse = await expectError(
    await ws.admin.delete(`/enterprise/api/v1/roles/${role.id}`),
    409,
    "conflict",
  );
  expect(inUse.message).toMatch(/in use by 1 member\(s\)/);
  const move = await ws.admin.put(`/api/v1/workspaces/${ws.id}/members/${operator.userId}`, {
    member: { role_id: ws.roles.Viewer },
  });
  expect(move.status(), await move.text()).toBe(200);
  expect((await ws.admin.delete(`/enterprise/api/v1/roles/${role.id}`)).status()).toBe(204);
  await expectError(await ws.admin.get(`/enterprise/api/v1/roles/${role.id}`), 404, "not_found");
});

test("system roles cannot be changed or deleted (403)", async () => {
  const put = await expectError(
    await ws.admin.put(`/enterprise/api/v1/roles/${ws.roles.Viewer}`, { role: { role_desc: "x" } }),
    403,
    "forbidden",
  );
  expect(put.message).toBe("Viewer is a system role and cannot be changed; create a custom role instead.");
  await expectError(await ws.admin.delete(`/enterprise/api/v1/roles/${ws.roles.Admin}`), 403, "forbidden");
});

test("validation: unknown resources and actions, missing fields, duplicate names", async () => {
  const unknown = await expectError(
    await ws.admin.post("/enterprise/api/v1/roles", {
      role: {
        role_name: "Bad",
        policies: { permissions: { spaceship: { read: true }, sync: { fly: true } } },
      },
    }),
    422,
    "validation_failed",
  );
  expect((unknown.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
    "role.policies.permissions",
    "role.policies.permissions.sync",
  ]);
  const missing = await expectError(
    await ws.admin.post("/enterprise/api/v1/roles", { role: {} }),
    422,
    "validation_failed",
  );
  expect((missing.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
    "role.policies",
    "role.role_name",
  ]);
  await expectError(
    await ws.admin.post("/enterprise/api/v1/roles", { role: { role_name: "viewer", policies } }),
    409,
    "conflict",
  );
  await expectError(await ws.admin.put("/enterprise/api/v1/roles/abc", { role: {} }), 400, "bad_request");
});

test("custom roles of another workspace are 404; Members may not manage roles", async ({ request }) => {
  const other = await newWorkspace(request);
  const foreign = (
    await (
      await other.admin.post("/enterprise/api/v1/roles", { role: { role_name: "Foreign", policies } })
    ).json()
  ).data;
  const stranger = await memberWithRole(request, ws, "Admin");
  await expectError(await stranger.api.get(`/enterprise/api/v1/roles/${foreign.id}`), 404, "not_found");
  await expectError(
    await stranger.api.put(`/enterprise/api/v1/roles/${foreign.id}`, { role: { role_desc: "x" } }),
    404,
    "not_found",
  );
  const member = await memberWithRole(request, ws, "Member");
  await expectError(
    await member.api.post("/enterprise/api/v1/roles", { role: { role_name: "M", policies } }),
    403,
    "forbidden",
  );
});
