// Tenant isolation: a caller of workspace B, with every endpoint of the table and the ids of
// workspace A's resources (path or body), gets exactly what a nonexistent id gets: 404 for a path id,
// the same answer as for an unknown id for a body id. Nothing of A changes. (Roles × endpoints,
// revoked/expired tokens and token confinement are in permissions-matrix.spec.ts.)
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { Api, BASE_URL, loginAs } from "../support/api";
import { dataWorkspace, type DataWorkspace } from "../support/data";
import { acceptInvitation } from "../support/mailbox";
import { fillPath, SWEEP } from "../support/sweep";
import { resourceFixture } from "../support/sweep-fixture";
import type { Ids } from "../support/sweep-specs";

test.describe.configure({ mode: "serial", timeout: 120_000 });

let a: DataWorkspace;
let idsA: Ids;
let drop: () => Promise<void>;
let stranger: Api;
let workspaceB: number;

test.beforeAll(async () => {
  a = await dataWorkspace("tenant-a");
  ({ ids: idsA, drop } = await resourceFixture(a.admin, a.workspaceId));
  // B's Admin is a different account, not a member of A.
  const b = await dataWorkspace("tenant-b");
  workspaceB = b.workspaceId;
  const roles = (await (await b.admin.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const email = `stranger-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await b.admin.post(`/api/v1/workspaces/${workspaceB}/members`, {
    member: { email, name: "Stranger", role_id: Number(roles.find((r) => r.attributes.role_name === "Admin")!.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  const ctx = await playwrightRequest.newContext({ baseURL: BASE_URL });
  await acceptInvitation(ctx, email, "stranger-password");
  stranger = new Api({ token: await loginAs(ctx, email, "stranger-password"), workspaceId: workspaceB });
});

test.afterAll(async () => {
  await drop?.();
  await a?.dispose();
});

async function send(api: Api, method: string, path: string, body?: unknown) {
  switch (method) {
    case "GET":
      return api.get(path);
    case "POST":
      return api.post(path, body);
    case "PUT":
      return api.put(path, body);
    case "PATCH":
      return api.patch(path, body);
    default:
      return api.delete(path);
  }
}

test("every endpoint with another workspace's ids answers as for ids that do not exist", async () => {
  const before = (await (await a.admin.get("/api/v1/audit_logs?per_page=1")).json()).meta.total_count;
  const problems: string[] = [];
  let requests = 0;
  const fakeIds: Ids = { ...idsA, definition: idsA.definition };
  for (const key of Object.keys(fakeIds) as (keyof Ids)[]) if (key !== "definition") (fakeIds as unknown as Record<string, number>)[key] = 2_000_000_000;

  for (const e of SWEEP) {
    const idNames = (e.ids ?? []).filter((n) => n !== "definition");
    const bodyIds = Object.keys(e.bodyIds ?? {});
    if (idNames.length === 0 && bodyIds.length === 0) continue;
    // Path ids (and body ids) of A, with the stranger's token, in B and with A's Workspace-Id.
    for (const api of [stranger, stranger.inWorkspace(a.workspaceId), stranger.inWorkspace(undefined)]) {
      const foreign = await send(api, e.method, fillPath(e, idsA), e.body?.(idsA));
      const missing = await send(api, e.method, fillPath(e, fakeIds), e.body?.(fakeIds));
      requests += 2;
      const expected = idNames.length > 0 ? 404 : missing.status();
      const ws = api.session.workspaceId ?? "default";
      if (foreign.status() !== expected) problems.push(`${e.method} ${e.path} (workspace ${ws}): ${foreign.status()} ${(await foreign.text()).slice(0, 160)}; unknown ids: ${missing.status()}`);
      if (idNames.length > 0 && missing.status() !== 404) problems.push(`${e.method} ${e.path} unknown ids: ${missing.status()}`);
      if (foreign.status() < 300) problems.push(`${e.method} ${e.path} (workspace ${ws}) succeeded with another workspace's ids`);
      if (foreign.status() === 404) {
        const body = await foreign.json();
        expect(body.status).toBe("not_found");
      }
    }
  }
  console.log(`tenant isolation: ${requests} requests over ${SWEEP.length} endpoints`);
  expect(problems).toEqual([]);
  // Workspace A saw no change at all.
  expect((await (await a.admin.get("/api/v1/audit_logs?per_page=1")).json()).meta.total_count).toBe(before);
  expect((await a.admin.get(`/api/v1/connectors/${idsA.source}`)).status()).toBe(200);
  expect((await a.admin.get(`/api/v1/syncs/${idsA.sync}`)).status()).toBe(200);
});

test("lists and reports of one workspace never show the other's resources", async () => {
  const lists = ["/api/v1/connectors", "/api/v1/models", "/api/v1/syncs", "/api/v1/api_tokens", "/api/v1/audit_logs", "/enterprise/api/v1/roles", "/api/v1/webhook_subscriptions"];
  for (const list of lists) {
    const res = await stranger.get(`${list}${list.includes("?") ? "&" : "?"}per_page=100`);
    expect(res.status(), list).toBe(200);
    const text = await res.text();
    const ids = ((JSON.parse(text).data ?? []) as { id: string; attributes?: { workspace_id?: number } }[]).map((r) => r.attributes?.workspace_id).filter((w) => w !== undefined && w !== null); // system roles have none
    for (const w of ids) expect(w, list).toBe(workspaceB);
    expect(text).not.toContain(`"workspace_id":${a.workspaceId},`);
  }
  const workspaces = (await (await stranger.get("/api/v1/workspaces")).json()).data as { id: string }[];
  expect(workspaces.map((w) => Number(w.id))).not.toContain(a.workspaceId);
});
