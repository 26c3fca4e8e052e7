// GET /api/v1/audit_logs over real HTTP: what the access endpoints record, filters, permission.
import { expect, test } from "@playwright/test";
import { ISO_TIME, expectError, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request, "Audit spec");
});

test("creates, updates and deletes are listed newest first with who did them", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  const role = (
    await (
      await ws.admin.post("/enterprise/api/v1/roles", {
        role: { role_name: "Audited", policies: { permissions: {} } },
      })
    ).json()
  ).data;
  await ws.admin.put(`/enterprise/api/v1/roles/${role.id}`, { role: { role_desc: "changed" } });
  await ws.admin.delete(`/enterprise/api/v1/roles/${role.id}`);

  const res = await ws.admin.get("/api/v1/audit_logs");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(["data", "links", "meta"]);
  const first = body.data[0];
  expect(first.type).toBe("audit_logs");
  expect(typeof first.id).toBe("string");
  expect(first.attributes).toMatchObject({
    action: "delete",
    resource_type: "role",
    resource_id: role.id,
    user_email: "admin@example.com",
    workspace_id: ws.id,
  });
  expect(typeof first.attributes.user_id).toBe("number");
  expect(first.attributes.created_at).toMatch(ISO_TIME);
  const trail = body.data.map(
    (e: { attributes: { action: string; resource_type: string } }) =>
      `${e.attributes.action} ${e.attributes.resource_type}`,
  );
  expect(trail.slice(0, 4)).toEqual(["delete role", "update role", "create role", "create member"]);
  expect(trail.at(-1)).toBe("create workspace");
  expect(
    body.data.find(
      (e: { attributes: { resource_id: string } }) => e.attributes.resource_id === String(viewer.userId),
    ).attributes.metadata,
  ).toMatchObject({
    email: viewer.email,
    role_name: "Viewer",
  });
});

test("filters by resource_type, resource_id and user_id; bad filters are 400", async () => {
  const roleLogs = await (await ws.admin.get("/api/v1/audit_logs?resource_type=role")).json();
  expect(roleLogs.data.length).toBeGreaterThan(0);
  expect(
    new Set(roleLogs.data.map((e: { attributes: { resource_type: string } }) => e.attributes.resource_type)),
  ).toEqual(new Set(["role"]));
  const one = roleLogs.data[0].attributes.resource_id;
  const byId = await (await ws.admin.get(`/api/v1/audit_logs?resource_type=role&resource_id=${one}`)).json();
  expect(
    byId.data.every((e: { attributes: { resource_id: string } }) => e.attributes.resource_id === one),
  ).toBe(true);
  const nobody = await (await ws.admin.get("/api/v1/audit_logs?user_id=999999")).json();
  expect(nobody.data).toEqual([]);
  expect(nobody.meta.total_count).toBe(0);
  await expectError(await ws.admin.get("/api/v1/audit_logs?user_id=abc"), 400, "bad_request");
  await expectError(await ws.admin.get("/api/v1/audit_logs?resource_type=DROP%20TABLE"), 400, "bad_request");
});

test("Viewers may not read the audit log; Members may", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  await expectError(await viewer.api.get("/api/v1/audit_logs"), 403, "forbidden");
  const member = await memberWithRole(request, ws, "Member");
  expect((await member.api.get("/api/v1/audit_logs")).status()).toBe(200);
});
