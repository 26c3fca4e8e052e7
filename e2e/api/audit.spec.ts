// The audit log: creating, updating and deleting connectors, models, syncs, members, roles and API
// tokens each leaves one entry (who, what, when) listable through GET /api/v1/audit_logs.
import { expect, test } from "@playwright/test";
import { ISO_TIME } from "../support/api";
import { dataWorkspace, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
test.beforeAll(async () => {
  ws = await dataWorkspace("audit");
});
test.afterAll(async () => ws?.dispose());

async function ok(res: Awaited<ReturnType<DataWorkspace["admin"]["get"]>>) {
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.status() === 204 ? {} : res.json();
}
const idOf = (body: { data?: { id: string }; id?: string }) => Number(body.data?.id ?? body.id);

async function entries(type: string, id: number) {
  const res = await ws.admin.get(`/api/v1/audit_logs?resource_type=${type}&resource_id=${id}&per_page=100`);
  expect(res.status()).toBe(200);
  return ((await res.json()).data as { attributes: Record<string, unknown> }[]).map((e) => e.attributes);
}

async function expectTrail(type: string, id: number, actions: string[]) {
  const list = await entries(type, id);
  expect(list.map((e) => e.action).sort(), `${type} ${id}: ${JSON.stringify(list)}`).toEqual([...actions].sort());
  for (const e of list) {
    expect(e.created_at).toMatch(ISO_TIME);
    expect(JSON.stringify(e)).toContain("admin@example.com");
  }
}

test("create, update and delete of every resource kind leave audit entries", async () => {
  const admin = ws.admin;
  const connector = (type: string) => ({ connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() } });
  const source = idOf(await ok(await admin.post("/api/v1/connectors", connector("source"))));
  const destination = idOf(await ok(await admin.post("/api/v1/connectors", connector("destination"))));
  await ok(await admin.put(`/api/v1/connectors/${source}`, { connector: { description: "audited" } }));
  const catalog = idOf(await ok(await admin.post("/api/v1/catalogs", { connector_id: destination, catalog: { streams: [{ name: "contacts" }] } })));
  const model = idOf(await ok(await admin.post("/api/v1/models", { model: { name: unique("m"), query: "SELECT 1 AS id", query_type: "raw_sql", primary_key: "id", connector_id: source } })));
  await ok(await admin.put(`/api/v1/models/${model}`, { model: { description: "audited" } }));
  const sync = idOf(
    await ok(
      await admin.post("/api/v1/syncs", {
        sync: { name: unique("s"), source_id: source, destination_id: destination, model_id: model, schedule_type: "manual", sync_mode: "full_refresh", stream_name: "contacts" },
      }),
    ),
  );
  await ok(await admin.put(`/api/v1/syncs/${sync}`, { sync: { description: "audited" } }));
  await ok(await admin.delete(`/api/v1/syncs/${sync}`));
  await ok(await admin.delete(`/api/v1/models/${model}`));
  await ok(await admin.delete(`/api/v1/connectors/${source}`));

  const role = idOf(await ok(await admin.post("/enterprise/api/v1/roles", { role: { role_name: unique("r"), role_desc: "x", policies: { permissions: { sync: { read: true } } } } })));
  await ok(await admin.put(`/enterprise/api/v1/roles/${role}`, { role: { role_desc: "audited" } }));
  const member = idOf(
    await ok(await admin.post(`/api/v1/workspaces/${ws.workspaceId}/members`, { member: { email: `${unique("a")}@example.com`, name: "A", role_id: role } })),
  );
  const roles = (await (await admin.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const viewer = Number(roles.find((r) => r.attributes.role_name === "Viewer")!.id);
  await ok(await admin.put(`/api/v1/workspaces/${ws.workspaceId}/members/${member}`, { member: { role_id: viewer } }));
  await ok(await admin.delete(`/api/v1/workspaces/${ws.workspaceId}/members/${member}`));
  await ok(await admin.delete(`/enterprise/api/v1/roles/${role}`));
  const token = idOf(await ok(await admin.post("/api/v1/api_tokens", { api_token: { name: unique("t") } })));
  await ok(await admin.delete(`/api/v1/api_tokens/${token}`));

  await expectTrail("connector", source, ["create", "update", "delete"]);
  await expectTrail("connector", destination, ["create"]);
  await expectTrail("catalog", catalog, ["create"]);
  await expectTrail("model", model, ["create", "update", "delete"]);
  await expectTrail("sync", sync, ["create", "update", "delete"]);
  await expectTrail("role", role, ["create", "update", "delete"]);
  const memberTrail = [...(await entries("member", member)), ...(await entries("workspace_user", member)), ...(await entries("user", member))];
  expect(memberTrail.map((e) => e.action).sort(), JSON.stringify(memberTrail)).toEqual(["create", "delete", "update"]);
  await expectTrail("api_token", token, ["create", "delete"]);

  // Viewers may not read the audit log.
  expect((await ws.viewer.get("/api/v1/audit_logs")).status()).toBe(403);
});
