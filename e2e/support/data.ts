// Fixtures for the data API specs: an isolated workspace per spec file with an Admin and a Viewer,
// and scratch tables in the local PostgreSQL `test` database that connectors point at.
import { randomBytes } from "node:crypto";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { Client } from "pg";
import { ADMIN, Api, loginAs } from "./api";
import { acceptInvitation } from "./mailbox";

export const PG = {
  host: process.env.E2E_PG_HOST ?? "127.0.0.1",
  port: Number(process.env.E2E_PG_PORT ?? 5432),
  user: process.env.E2E_PG_USER ?? "postgres",
  password: process.env.E2E_PG_PASSWORD ?? "",
  database: process.env.E2E_PG_DATABASE ?? "test",
};

/** A PostgreSQL connector configuration for the local test database. */
export function pgConfiguration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    host: PG.host,
    port: PG.port,
    database: PG.database,
    schema: "public",
    credentials: { auth_type: "username/password", username: PG.user, password: PG.password || "unused-password" },
    ...overrides,
  };
}

export const unique = (prefix: string) => `${prefix}_${randomBytes(4).toString("hex")}`;

/** Runs SQL against the test database (creates it when missing). */
export async function sql(text: string, values: unknown[] = []): Promise<void> {
  const client = new Client({ ...PG, password: PG.password || undefined });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Reads rows from the test database. */
export async function sqlRows<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ ...PG, password: PG.password || undefined });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function ensureTestDatabase(): Promise<void> {
  const client = new Client({ ...PG, database: "postgres", password: PG.password || undefined });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [PG.database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${PG.database}"`).catch(() => undefined);
  } finally {
    await client.end();
  }
}

export interface DataWorkspace {
  workspaceId: number;
  admin: Api;
  viewer: Api;
  /** Releases the request context created for a workspace made in beforeAll. */
  dispose(): Promise<void>;
}

/**
 * A new workspace owned by the seeded admin, plus a Viewer member signed in to it. In beforeAll, call
 * it without `request` (the fixture of a hook cannot be used by tests): it opens its own context.
 */
export async function dataWorkspace(label: string, given?: APIRequestContext): Promise<DataWorkspace> {
  const request = given ?? (await playwrightRequest.newContext({ baseURL: test.info().project.use.baseURL }));
  const token = await loginAs(request, ADMIN.email, ADMIN.password);
  const root = new Api({ token });
  const ws = await root.post("/api/v1/workspaces", { workspace: { name: unique(label) } });
  expect(ws.status(), await ws.text()).toBe(201);
  const workspaceId = Number((await ws.json()).data.id);
  const admin = new Api({ token, workspaceId });
  const roles = (await (await admin.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const viewerRole = roles.find((r) => r.attributes.role_name === "Viewer");
  expect(viewerRole).toBeTruthy();
  const email = `${unique("viewer")}@example.com`;
  const password = "viewer-password-1";
  const member = await admin.post(`/api/v1/workspaces/${workspaceId}/members`, {
    member: { email, name: "Viewer", role_id: Number(viewerRole!.id) },
  });
  expect(member.status(), await member.text()).toBe(201);
  await acceptInvitation(request, email, password);
  const viewer = new Api({ token: await loginAs(request, email, password), workspaceId });
  return { workspaceId, admin, viewer, dispose: async () => (given ? undefined : request.dispose()) };
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MASK = "*************";

/** Absolute links with all five keys (docs/architecture.md, "API rules", 2). */
export function expectLinks(links: Record<string, unknown>): void {
  expect(Object.keys(links).sort()).toEqual(["first", "last", "next", "prev", "self"]);
  for (const key of ["self", "first", "last"]) expect(String(links[key])).toMatch(/^http/);
}
