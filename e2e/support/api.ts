// Helpers for API contract tests over real HTTP: sign in, make an isolated workspace per test file,
// and call endpoints with the bearer token and Workspace-Id header.
import {
  expect,
  request as playwrightRequest,
  type APIRequestContext,
  type APIResponse,
} from "@playwright/test";
import { acceptInvitation } from "./mailbox";

export const ADMIN = { email: "admin@example.com", password: "e2e-admin-password" };

export interface Session {
  token: string;
  workspaceId?: number;
}

export async function loginAs(request: APIRequestContext, email: string, password: string): Promise<string> {
  const res = await request.post("/api/v1/login", { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes.token as string;
}

export function headers(session: Session): Record<string, string> {
  return {
    Authorization: `Bearer ${session.token}`,
    ...(session.workspaceId ? { "Workspace-Id": String(session.workspaceId) } : {}),
  };
}

/** Authorization, and Workspace-Id exactly as given (the specs also send malformed ones). */
export const bearer = (token: string, workspaceId?: string) => ({
  Authorization: `Bearer ${token}`,
  ...(workspaceId !== undefined ? { "Workspace-Id": workspaceId } : {}),
});

/** A client address of its own per test (the test servers trust X-Forwarded-For), so throttles do not meet. */
export const clientAddress = () => `198.18.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;

/** A resource body with its id blanked, to compare bodies whose ids differ. */
export const withoutId = (body: { data: { id: string } }) => ({ ...body, data: { ...body.data, id: "" } });

/** The server the tests talk to: playwright.config.ts sets E2E_PORT (a free port unless given). */
export const BASE_URL = `http://127.0.0.1:${Number(process.env.E2E_PORT)}`;

// One request context per worker for Api calls: an Api made in beforeAll keeps working in the tests
// (Playwright disposes the `request` fixture of a beforeAll when the hook ends).
let shared: Promise<APIRequestContext> | undefined;
const context = () => (shared ??= playwrightRequest.newContext({ baseURL: BASE_URL }));

/**
 * Idempotent calls are sent again after ECONNRESET (the only error Playwright's maxRetries retries):
 * a keep-alive connection idle for about the server's 65 s keepAliveTimeout can be closed by the
 * server just as the client reuses it. A POST is never resent: it might have been processed.
 */
const IDEMPOTENT = { maxRetries: 2 };

export class Api {
  /** Calls go through the worker's shared request context. */
  constructor(public session: Session) {}

  async get(path: string): Promise<APIResponse> {
    return (await context()).get(path, { headers: headers(this.session), ...IDEMPOTENT });
  }
  async post(path: string, data?: unknown, extraHeaders: Record<string, string> = {}): Promise<APIResponse> {
    return (await context()).post(path, { headers: { ...headers(this.session), ...extraHeaders }, data });
  }
  async put(path: string, data?: unknown): Promise<APIResponse> {
    return (await context()).put(path, { headers: headers(this.session), data, ...IDEMPOTENT });
  }
  async patch(path: string, data?: unknown): Promise<APIResponse> {
    return (await context()).patch(path, { headers: headers(this.session), data, ...IDEMPOTENT });
  }
  async delete(path: string): Promise<APIResponse> {
    return (await context()).delete(path, { headers: headers(this.session), ...IDEMPOTENT });
  }
  /** The same caller in another workspace (Workspace-Id header), or with none when undefined. */
  inWorkspace(workspaceId: number | undefined): Api {
    return new Api({ ...this.session, workspaceId });
  }
}

/** One item of an error body's `errors` (docs/architecture.md, "Errors"). */
export interface ErrorItem {
  status: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string; header?: string };
}

/** Expects the one error body of docs/architecture.md ("Errors"): {message, status, errors: [items]}. */
export async function expectError(
  res: APIResponse,
  status: number,
  code: string,
): Promise<Record<string, unknown> & { errors: ErrorItem[] }> {
  expect(res.status(), await res.text()).toBe(status);
  const body = await res.json();
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(3);
  expect(body.status).toBe(code);
  expectErrorItems(body, status, code);
  return body;
}

/** At least one item, each {status: "<HTTP status>", title: code, detail: sentence, source?}. */
export function expectErrorItems(body: { message?: unknown; errors?: unknown }, status: number, code: string): void {
  expect(Array.isArray(body.errors), JSON.stringify(body)).toBe(true);
  const items = body.errors as ErrorItem[];
  expect(items.length, JSON.stringify(body)).toBeGreaterThan(0);
  for (const item of items) {
    expect(item.status).toBe(String(status));
    expect(item.title).toBe(code);
    expect(typeof item.detail).toBe("string");
    expect(item.detail.length).toBeGreaterThan(3);
  }
  if (items.every((i) => i.source === undefined)) expect(items).toHaveLength(1);
}

/**
 * The field problems of an error body as {path, message}: the dotted form of each item's
 * source.pointer, and its detail without the leading "<path>: ". Items without a pointer are left out.
 */
export function fieldErrors(body: { errors?: unknown }): { path: string; message: string }[] {
  const items = (Array.isArray(body.errors) ? body.errors : []) as ErrorItem[];
  return items
    .filter((i) => typeof i.source?.pointer === "string")
    .map((i) => {
      const path = i
        .source!.pointer!.split("/")
        .slice(1)
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
        .join(".");
      const prefix = `${path || "body"}: `;
      return { path, message: i.detail.startsWith(prefix) ? i.detail.slice(prefix.length) : i.detail };
    });
}

/** A random suffix for names and emails, so spec files never collide. */
export const uniqueSuffix = () => Math.random().toString(36).slice(2, 10);

/** ISO 8601 UTC with milliseconds (docs/architecture.md, "API rules", 1). */
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface TestWorkspace {
  id: number;
  /** The seeded admin, working in this workspace (Workspace-Id set). */
  admin: Api;
  /** Role ids by name: the system roles and any custom role of the workspace at creation. */
  roles: Record<string, number>;
}

/** The seeded admin, signed in, in its default workspace. */
export async function adminApi(request: APIRequestContext): Promise<Api> {
  return new Api({ token: await loginAs(request, ADMIN.email, ADMIN.password) });
}

/** A new workspace created by the seeded admin (who becomes its Admin), isolated from other tests. */
export async function newWorkspace(
  request: APIRequestContext,
  name = `e2e ${uniqueSuffix()}`,
): Promise<TestWorkspace> {
  const root = await adminApi(request);
  const res = await root.post("/api/v1/workspaces", { workspace: { name } });
  expect(res.status(), await res.text()).toBe(201);
  const id = Number((await res.json()).data.id);
  const admin = new Api({ token: root.session.token, workspaceId: id });
  return { id, admin, roles: await roleIds(admin) };
}

export async function roleIds(api: Api): Promise<Record<string, number>> {
  const res = await api.get("/enterprise/api/v1/roles");
  expect(res.status(), await res.text()).toBe(200);
  const roles = (await res.json()).data as { id: string; attributes: { role_name: string } }[];
  return Object.fromEntries(roles.map((r) => [r.attributes.role_name, Number(r.id)]));
}

export interface TestMember {
  userId: number;
  email: string;
  password: string;
  /** Signed in as this member, working in the workspace. */
  api: Api;
}

/**
 * A new account added to the workspace with the named role (system or custom), signed in there: the
 * admin invites the address, and the invitee accepts through the mailed link, choosing `password`.
 */
export async function memberWithRole(
  request: APIRequestContext,
  ws: TestWorkspace,
  roleName: string,
): Promise<TestMember> {
  const roleId = ws.roles[roleName] ?? (await roleIds(ws.admin))[roleName];
  expect(roleId, `role ${roleName} exists`).toBeTruthy();
  const email = `${roleName.toLowerCase().replace(/\W+/g, "-")}-${uniqueSuffix()}@example.com`;
  const password = `pw-${uniqueSuffix()}-long`;
  const res = await ws.admin.post(`/api/v1/workspaces/${ws.id}/members`, {
    member: { email, name: `${roleName} member`, role_id: roleId },
  });
  expect(res.status(), await res.text()).toBe(201);
  const userId = Number((await res.json()).data.id);
  await acceptInvitation(request, email, password);
  const token = await loginAs(request, email, password);
  return { userId, email, password, api: new Api({ token, workspaceId: ws.id }) };
}

/** Creates an API token through the API and returns an Api that authenticates with it. */
export async function apiTokenFor(
  request: APIRequestContext,
  owner: Api,
  body: { name?: string; role_id?: number; expires_at?: string } = {},
): Promise<{ id: number; token: string; api: Api }> {
  const res = await owner.post("/api/v1/api_tokens", {
    api_token: { name: `token ${uniqueSuffix()}`, ...body },
  });
  expect(res.status(), await res.text()).toBe(201);
  const data = (await res.json()).data;
  return {
    id: Number(data.id),
    token: data.attributes.token,
    api: new Api({ token: data.attributes.token }),
  };
}
