// Roles over real HTTP: the contract's list, custom role CRUD, system roles read-only, roles in use.
import { expect, test } from "@playwright/test";
import { RESOURCES } from "../../lib/auth/permissions";
import {
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
  expect(fieldErrors(unknown).map((e) => e.path).sort()).toEqual([
    "role.policies.permissions",
    "role.policies.permissions.sync",
  ]);
  const missing = await expectError(
    await ws.admin.post("/enterprise/api/v1/roles", { role: {} }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(missing).map((e) => e.path).sort()).toEqual([
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

test.describe("no privilege escalation through roles", () => {
  const crud = { create: true, read: true, update: true, delete: true };
  // Manages roles and people, may read syncs; nothing else (no connectors, no workspace settings).
  const keeperPolicies = { permissions: { role: crud, user: crud, sync: { read: true } } };
  const everything = { permissions: Object.fromEntries(RESOURCES.map((r) => [r, crud])) };
  let rws: TestWorkspace;
  let keeperRoleId: number;

  test.beforeAll(async ({ request }) => {
    rws = await newWorkspace(request, "Escalation");
    const res = await rws.admin.post("/enterprise/api/v1/roles", {
      role: { role_name: "Role keeper", policies: keeperPolicies },
    });
    expect(res.status(), await res.text()).toBe(201);
    keeperRoleId = Number((await res.json()).data.id);
    rws.roles["Role keeper"] = keeperRoleId;
  });

  test("a custom role holding role.* cannot widen itself, nor then make itself Admin", async ({
    request,
  }) => {
    const keeper = await memberWithRole(request, rws, "Role keeper");
    await expectError(await keeper.api.get("/api/v1/connectors"), 403, "forbidden");

    // Step 1 of the attack: give its own role every permission.
    const widen = await expectError(
      await keeper.api.put(`/enterprise/api/v1/roles/${keeperRoleId}`, { role: { policies: everything } }),
      403,
      "forbidden",
    );
    expect(widen.message).toBe(
      "You hold the role Role keeper through your membership and cannot change it yourself; ask another member who may manage roles.",
    );
    // Not even a harmless-looking change, and not deleting it either.
    await expectError(
      await keeper.api.put(`/enterprise/api/v1/roles/${keeperRoleId}`, { role: { role_desc: "mine" } }),
      403,
      "forbidden",
    );
    await expectError(await keeper.api.delete(`/enterprise/api/v1/roles/${keeperRoleId}`), 403, "forbidden");
    // Step 2: make itself Admin through the members endpoint.
    const promote = await expectError(
      await keeper.api.put(`/api/v1/workspaces/${rws.id}/members/${keeper.userId}`, {
        member: { role_id: rws.roles.Admin },
      }),
      403,
      "forbidden",
    );
    expect(promote.message).toMatch(/^The role Admin would grant permissions your own role does not have: /);
    // System roles stay read-only for it.
    await expectError(
      await keeper.api.put(`/enterprise/api/v1/roles/${rws.roles.Member}`, {
        role: { policies: everything },
      }),
      403,
      "forbidden",
    );

    // Nothing changed: the role is as the Admin made it and the keeper still cannot read connectors.
    const role = (await (await rws.admin.get(`/enterprise/api/v1/roles/${keeperRoleId}`)).json()).data;
    expect(role.attributes.policies.permissions.connector).toEqual({
      create: false,
      read: false,
      update: false,
      delete: false,
    });
    const me = (await (await keeper.api.get("/api/v1/users/me")).json()).data.attributes;
    expect(me.role.role_name).toBe("Role keeper");
    await expectError(await keeper.api.get("/api/v1/connectors"), 403, "forbidden");
  });

  test("creating a role with more rights than the creator, or changing one beyond them, is 403", async ({
    request,
  }) => {
    const keeper = await memberWithRole(request, rws, "Role keeper");
    const create = await expectError(
      await keeper.api.post("/enterprise/api/v1/roles", {
        role: { role_name: "Ladder", policies: everything },
      }),
      403,
      "forbidden",
    );
    expect(create.message).toMatch(
      /^The role Ladder would grant permissions your own role does not have: connector_definition\.create, /,
    );
    expect(create.message).toMatch(/Nobody may grant rights they do not hold\.$/);
    // The detour: a role within its rights, handed to an accomplice, then widened.
    const modest = await keeper.api.post("/enterprise/api/v1/roles", {
      role: { role_name: "Sync reader", policies: { permissions: { sync: { read: true } } } },
    });
    expect(modest.status(), await modest.text()).toBe(201);
    const modestId = (await modest.json()).data.id;
    const widen = await expectError(
      await keeper.api.put(`/enterprise/api/v1/roles/${modestId}`, {
        role: { policies: { permissions: { sync: { read: true }, connector: { read: true } } } },
      }),
      403,
      "forbidden",
    );
    expect(widen.message).toMatch(/connector\.read/);
    // Within its rights, a change is fine.
    const narrow = await keeper.api.put(`/enterprise/api/v1/roles/${modestId}`, {
      role: { policies: { permissions: { sync: { read: true }, user: { read: true } } } },
    });
    expect(narrow.status(), await narrow.text()).toBe(200);
    // A role the Admin made with more than the keeper holds is out of its reach altogether.
    const wide = await rws.admin.post("/enterprise/api/v1/roles", {
      role: {
        role_name: "Connector admin",
        policies: { permissions: { connector: crud, sync: { read: true } } },
      },
    });
    const wideId = (await wide.json()).data.id;
    const reach = await expectError(
      await keeper.api.put(`/enterprise/api/v1/roles/${wideId}`, {
        role: { policies: { permissions: { sync: { read: true } } } },
      }),
      403,
      "forbidden",
    );
    expect(reach.message).toBe(
      "You may not change the role Connector admin: it has permissions yours does not (connector.create, connector.read, connector.update, connector.delete).",
    );
    await expectError(await keeper.api.delete(`/enterprise/api/v1/roles/${wideId}`), 403, "forbidden");
    expect((await keeper.api.delete(`/enterprise/api/v1/roles/${modestId}`)).status()).toBe(204);
  });

  test("members whose role exceeds the caller's can be neither demoted nor removed by it", async ({
    request,
  }) => {
    const keeper = await memberWithRole(request, rws, "Role keeper");
    const admin = await memberWithRole(request, rws, "Admin");
    const path = `/api/v1/workspaces/${rws.id}/members/${admin.userId}`;
    // A role the keeper could hand out (within its own rights), to demote the Admin to.
    const lesser = await rws.admin.post("/enterprise/api/v1/roles", {
      role: { role_name: "Sync watcher", policies: { permissions: { sync: { read: true } } } },
    });
    expect(lesser.status(), await lesser.text()).toBe(201);
    const demote = await expectError(
      await keeper.api.put(path, { member: { role_id: Number((await lesser.json()).data.id) } }),
      403,
      "forbidden",
    );
    expect(demote.message).toBe(
      `You may not change the role of ${admin.email}: their role (Admin) has permissions yours does not.`,
    );
    await expectError(await keeper.api.delete(path), 403, "forbidden");
    expect((await admin.api.get("/api/v1/connectors")).status()).toBe(200);
  });

  test("an API token's narrowed rights are the caller's rights", async ({ request }) => {
    // The Admin's token may manage roles and nothing else: it cannot hand out sync.read.
    const rolesOnly = await rws.admin.post("/enterprise/api/v1/roles", {
      role: { role_name: "Roles only", policies: { permissions: { role: crud } } },
    });
    expect(rolesOnly.status(), await rolesOnly.text()).toBe(201);
    const rolesOnlyId = Number((await rolesOnly.json()).data.id);
    const { api: token } = await apiTokenFor(request, rws.admin, { role_id: rolesOnlyId });
    const create = await expectError(
      await token.post("/enterprise/api/v1/roles", {
        role: { role_name: "Reader", policies: { permissions: { sync: { read: true } } } },
      }),
      403,
      "forbidden",
    );
    expect(create.message).toMatch(/sync\.read/);
    // Nor may it change the role it acts with.
    const self = await expectError(
      await token.put(`/enterprise/api/v1/roles/${rolesOnlyId}`, { role: { policies: everything } }),
      403,
      "forbidden",
    );
    expect(self.message).toMatch(/through this API token/);
    const ok = await token.post("/enterprise/api/v1/roles", {
      role: { role_name: "Role reader", policies: { permissions: { role: { read: true } } } },
    });
    expect(ok.status(), await ok.text()).toBe(201);
  });
});
