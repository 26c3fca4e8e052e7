// Every endpoint × every system role: 403 exactly where lib/auth/permissions.ts says no, and never
// 403 (nor 401, nor 5xx) otherwise. Also: the endpoint table matches the route files on disk,
// revoked and expired tokens are 401 everywhere, an API token is confined to its workspace and
// acts with its narrowed role.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIResponse } from "@playwright/test";
import { can, SYSTEM_ROLES } from "../../lib/auth/permissions";
import {
  Api,
  apiTokenFor,
  loginAs,
  memberWithRole,
  newWorkspace,
  type TestMember,
  type TestWorkspace,
} from "../support/api";
import { ENDPOINTS, pathKey, UNKNOWN_FLAGGED, type Endpoint } from "../support/endpoints";

test.describe.configure({ timeout: 180_000 });

const ROOT = path.resolve(__dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Route files under app/api and app/enterprise/api: URL template and exported methods. */
function routeFiles(): { path: string; method: string; file: string }[] {
  const out: { path: string; method: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const url = "/" + path.relative(path.join(ROOT, "app"), path.dirname(full)).split(path.sep).join("/");
        for (const method of METHODS) {
          if (!new RegExp(`export (?:const ${method} =|async function ${method}\\b|\\{[^}]*\\bas ${method}\\b)`).test(source)) continue;
          out.push({ path: url.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, "{$1}"), method, file: path.relative(ROOT, full) });
        }
      }
    }
  };
  walk(path.join(ROOT, "app/api"));
  walk(path.join(ROOT, "app/enterprise/api"));
  return out;
}

// Permissions come from the operation declarations the routes use (lib/contract; the route files
// are checked against them in lib/openapi/document.test.ts): this pins that the table walks them all.
test("the endpoint table lists every route file and method", () => {
  const files = routeFiles();
  const table = new Map(ENDPOINTS.map((e) => [`${e.method} ${pathKey(e.path)}`, e]));
  const missing = files
    .filter((f) => !table.has(`${f.method} ${pathKey(f.path)}`))
    .map((f) => `${f.method} ${f.path} (${f.file})`);
  expect(missing, "endpoints missing from e2e/support/endpoints.ts").toEqual([]);
  const onDisk = new Set(files.map((f) => `${f.method} ${pathKey(f.path)}`));
  const stale = ENDPOINTS.filter((e) => !onDisk.has(`${e.method} ${pathKey(e.path)}`)).map(
    (e) => `${e.method} ${e.path}`,
  );
  expect(stale, "table entries without a route file").toEqual([]);
  expect(UNKNOWN_FLAGGED, "test flags for operations that do not exist").toEqual([]);
});

let ws: TestWorkspace;
const members: Partial<Record<string, TestMember>> = {};

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  ws = await newWorkspace(request, "Permissions matrix");
  for (const role of SYSTEM_ROLES) members[role.name] = await memberWithRole(request, ws, role.name);
});

function fill(e: Endpoint): string {
  return e.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === "workspace_id") return String(ws.id);
    if (name === "name") return "Postgresql";
    if (name === "nextauth") return "session";
    return "999999999";
  });
}

async function call(api: Api, e: Endpoint): Promise<APIResponse> {
  const url = fill(e);
  const body = typeof e.body === "function" ? e.body({ roles: ws.roles }) : e.body;
  switch (e.method) {
    case "GET":
      return api.get(url);
    case "POST":
      return api.post(url, body);
    case "PUT":
      return api.put(url, body);
    case "PATCH":
      return api.patch(url, body);
    case "DELETE":
      return api.delete(url);
  }
}

const allowed = (e: Endpoint, policies: (typeof SYSTEM_ROLES)[number]["policies"]) =>
  Array.isArray(e.permission) ? can(policies, e.permission[0], e.permission[1]) : true;

async function walk(roleName: string, apiFor: (e: Endpoint) => Promise<Api>): Promise<string[]> {
  const policies = SYSTEM_ROLES.find((r) => r.name === roleName)!.policies;
  const problems: string[] = [];
  for (const e of ENDPOINTS.filter((x) => !x.skip)) {
    const res = await call(await apiFor(e), e);
    const status = res.status();
    const label = `${roleName} ${e.method} ${e.path} → ${status}`;
    if (e.offUnless && status === 403) {
      // Switched off on the test server: the same 403 for everyone, with the usual error body.
      if ((await res.json()).status !== "forbidden") problems.push(`${label}: bad error body`);
    } else if (allowed(e, policies)) {
      if (status === 403 || status === 401 || status >= 500)
        problems.push(`${label} (expected allowed): ${(await res.text()).slice(0, 200)}`);
      // A 404 must be the API's own (an unknown id), not Next's page for a route that does not exist.
      else if (status === 404 && (await res.json().catch(() => null))?.status !== "not_found")
        problems.push(`${label}: no such route`);
    } else if (status !== 403) {
      problems.push(`${label} (expected 403)`);
    } else {
      const body = await res.json();
      if (body.status !== "forbidden" || typeof body.message !== "string")
        problems.push(`${label}: bad error body ${JSON.stringify(body)}`);
    }
  }
  return problems;
}

for (const role of SYSTEM_ROLES) {
  test(`${role.name}: 403 exactly where the permission matrix says no`, async ({ request }) => {
    const member = members[role.name]!;
    const problems = await walk(role.name, async (e) =>
      e.revokesSession
        ? new Api(request, {
            token: await loginAs(request, member.email, member.password),
            workspaceId: ws.id,
          })
        : member.api,
    );
    expect(problems).toEqual([]);
  });
}

// The table walks POST /connectors/{id}/check without a body (connector.read); trying unsaved
// settings in the body could send the stored secrets elsewhere, so it needs connector.update.
test("POST /connectors/{id}/check with a configuration needs connector.update", async () => {
  const problems: string[] = [];
  for (const role of SYSTEM_ROLES) {
    const res = await members[role.name]!.api.post("/api/v1/connectors/999999999/check", { configuration: { host: "x" } });
    const expected = can(role.policies, "connector", "update") ? 404 : 403;
    if (res.status() !== expected) problems.push(`${role.name} → ${res.status()} (expected ${expected})`);
  }
  expect(problems).toEqual([]);
});

test("an Admin's API token narrowed to Viewer acts exactly like a Viewer", async ({ request }) => {
  const { api } = await apiTokenFor(request, members.Admin!.api, { role_id: ws.roles.Viewer });
  expect(await walk("Viewer", async () => api)).toEqual([]);
});

test("revoked and expired tokens are 401 on every non-public endpoint", async ({ request }) => {
  const revoked = await apiTokenFor(request, members.Admin!.api);
  expect((await members.Admin!.api.delete(`/api/v1/api_tokens/${revoked.id}`)).status()).toBe(204);
  const expired = await apiTokenFor(request, members.Admin!.api, {
    expires_at: new Date(Date.now() + 2000).toISOString(),
  });
  const session = new Api(request, {
    token: await loginAs(request, members.Member!.email, members.Member!.password),
    workspaceId: ws.id,
  });
  expect((await session.delete("/api/v1/logout")).status()).toBe(200);
  await new Promise((r) => setTimeout(r, 2100));
  const problems: string[] = [];
  for (const e of ENDPOINTS.filter((x) => !x.skip && x.permission !== "public")) {
    for (const [kind, api] of [
      ["revoked", revoked.api],
      ["expired", expired.api],
      ["logged-out", session],
    ] as const) {
      const res = await call(api, e);
      if (res.status() !== 401) problems.push(`${kind} ${e.method} ${e.path} → ${res.status()}`);
      else expect((await res.json()).status).toBe("unauthorized");
    }
  }
  expect(problems).toEqual([]);
});

test("an API token is confined to its workspace", async ({ request }) => {
  const other = await newWorkspace(request); // the seeded admin belongs to both
  const root = other.admin.inWorkspace(undefined);
  const { api } = await apiTokenFor(request, root.inWorkspace(ws.id));
  expect((await api.get("/api/v1/connectors")).status()).toBe(200);
  const elsewhere = api.inWorkspace(other.id);
  for (const url of ["/api/v1/connectors", "/enterprise/api/v1/roles"]) {
    const res = await elsewhere.get(url);
    expect(res.status(), url).toBe(404);
    expect((await res.json()).status).toBe("not_found");
  }
  // User-level calls ignore a header they cannot use: the token still speaks for its own workspace.
  const me = await elsewhere.get("/api/v1/users/me");
  expect(me.status()).toBe(200);
  expect((await me.json()).data.attributes.workspace_id).toBe(ws.id);
  const listed = (await (await elsewhere.get("/api/v1/workspaces")).json()).data;
  expect(listed.map((w: { id: string }) => Number(w.id))).toEqual([ws.id]);
  expect((await api.get(`/api/v1/workspaces/${other.id}`)).status()).toBe(404);
  expect((await api.get(`/api/v1/workspaces/${other.id}/members`)).status()).toBe(404);
});
