// Every endpoint of the API in one table: method, path template and the permission it requires
// (lib/auth/permissions.ts). The permissions-matrix spec walks it × every system role, and checks
// it against the route files on disk so a new endpoint cannot be left out.
//
// Path placeholders: {workspace_id} is the test's workspace, {role_id} a role of it, {name} a
// connector definition name; any other {…} is an id that does not exist (so allowed calls end in a
// harmless 404/422 instead of changing data).
import type { Action, Resource } from "../../lib/auth/permissions";

export type Requirement = readonly [Resource, Action] | "member" | "user" | "public";

export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  permission: Requirement;
  /**
   * The route declares "member" and the service checks `permission` in the workspace of the path
   * (workspace and member endpoints), after parsing the body: such endpoints get a valid body.
   */
  checkedInPath?: boolean;
  /** A request body; a function gets the role ids of the test workspace. */
  body?: unknown | ((ctx: { roles: Record<string, number> }) => unknown);
  /** Revokes the caller's session (logout): the matrix signs in afresh for it. */
  revokesSession?: boolean;
  /** Not part of the REST API (console sign-in internals): listed for completeness, not walked. */
  skip?: string;
  /**
   * Switched off unless the operator sets this variable (the test server does not): its 403 is the
   * switch, the same for everyone, not a permission.
   */
  offUnless?: string;
}

const uniqueEmail = () => `matrix-${Math.random().toString(36).slice(2, 10)}@example.com`;

export const ENDPOINTS: Endpoint[] = [
  // Service and console plumbing
  { method: "GET", path: "/api/health", permission: "public" },
  { method: "GET", path: "/api/ready", permission: "public" },
  { method: "GET", path: "/api/metrics", permission: "public" },
  { method: "GET", path: "/api/v1/openapi.json", permission: "public" },
  { method: "GET", path: "/api/v1/setup", permission: "public" },
  { method: "POST", path: "/api/v1/setup", permission: "public", body: {} },
  { method: "GET", path: "/api/auth/{nextauth}", permission: "public", skip: "next-auth internals" },
  { method: "POST", path: "/api/auth/{nextauth}", permission: "public", skip: "next-auth internals" },
  // The catch-alls of unknown API paths (a JSON 404 for any method): route files, not endpoints.
  ...(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).flatMap((method) =>
    ["/api/{path}", "/enterprise/api/{path}"].map((path) => ({
      method,
      path,
      permission: "public" as const,
      skip: "not an endpoint: unknown API paths answer a JSON 404",
    })),
  ),

  // Access
  { method: "POST", path: "/api/v1/login", permission: "public", body: {} },
  { method: "DELETE", path: "/api/v1/logout", permission: "user", revokesSession: true },
  { method: "GET", path: "/api/v1/users/me", permission: "user" },
  // An empty body: every role reaches validation (422) and no password changes.
  { method: "PUT", path: "/api/v1/users/me/password", permission: "user", body: {} },
  // Accounts: empty bodies and a missing token end in validation (422/400), sending no mail.
  { method: "POST", path: "/api/v1/signup", permission: "public", body: {}, offUnless: "SIGNUP_ENABLED" },
  { method: "POST", path: "/api/v1/forgot_password", permission: "public", body: {} },
  { method: "POST", path: "/api/v1/reset_password", permission: "public", body: {} },
  { method: "GET", path: "/api/v1/verify_user", permission: "public" },
  { method: "POST", path: "/api/v1/resend_verification", permission: "public", body: {} },
  { method: "GET", path: "/api/v1/api_tokens", permission: ["api_token", "read"] },
  { method: "POST", path: "/api/v1/api_tokens", permission: ["api_token", "create"], body: {} },
  { method: "DELETE", path: "/api/v1/api_tokens/{id}", permission: ["api_token", "delete"] },
  { method: "GET", path: "/api/v1/workspaces", permission: "user" },
  { method: "POST", path: "/api/v1/workspaces", permission: ["workspace", "create"], body: {} },
  {
    method: "GET",
    path: "/api/v1/workspaces/{workspace_id}",
    permission: ["workspace", "read"],
    checkedInPath: true,
  },
  {
    method: "PUT",
    path: "/api/v1/workspaces/{workspace_id}",
    permission: ["workspace", "update"],
    checkedInPath: true,
    body: { workspace: { name: "Permissions matrix" } },
  },
  // Allowed callers get 409: the matrix's users have no other workspace to fall back to.
  {
    method: "DELETE",
    path: "/api/v1/workspaces/{workspace_id}",
    permission: ["workspace", "delete"],
    checkedInPath: true,
  },
  {
    method: "GET",
    path: "/api/v1/workspaces/{workspace_id}/members",
    permission: ["user", "read"],
    checkedInPath: true,
  },
  {
    method: "POST",
    path: "/api/v1/workspaces/{workspace_id}/members",
    permission: ["user", "create"],
    checkedInPath: true,
    body: ({ roles }: { roles: Record<string, number> }) => ({
      member: { email: uniqueEmail(), name: "Matrix", password: "matrix-password", role_id: roles.Viewer },
    }),
  },
  {
    method: "GET",
    path: "/api/v1/workspaces/{workspace_id}/members/{user_id}",
    permission: ["user", "read"],
    checkedInPath: true,
  },
  {
    method: "PUT",
    path: "/api/v1/workspaces/{workspace_id}/members/{user_id}",
    permission: ["user", "update"],
    checkedInPath: true,
    body: ({ roles }: { roles: Record<string, number> }) => ({ member: { role_id: roles.Viewer } }),
  },
  {
    method: "DELETE",
    path: "/api/v1/workspaces/{workspace_id}/members/{user_id}",
    permission: ["user", "delete"],
    checkedInPath: true,
  },
  { method: "GET", path: "/enterprise/api/v1/roles", permission: "member" },
  { method: "POST", path: "/enterprise/api/v1/roles", permission: ["role", "create"], body: {} },
  { method: "GET", path: "/enterprise/api/v1/roles/{id}", permission: "member" },
  {
    method: "PUT",
    path: "/enterprise/api/v1/roles/{id}",
    permission: ["role", "update"],
    body: { role: {} },
  },
  { method: "DELETE", path: "/enterprise/api/v1/roles/{id}", permission: ["role", "delete"] },
  { method: "GET", path: "/api/v1/audit_logs", permission: ["audit_log", "read"] },
  { method: "GET", path: "/api/v1/reports?type=workspace_activity", permission: ["report", "read"] },

  // Connectors and definitions
  { method: "GET", path: "/api/v1/connector_definitions", permission: ["connector_definition", "read"] },
  {
    method: "GET",
    path: "/api/v1/connector_definitions/{name}",
    permission: ["connector_definition", "read"],
  },
  {
    method: "POST",
    path: "/api/v1/connector_definitions/check_connection",
    permission: ["connector_definition", "create"],
    body: {},
  },
  { method: "GET", path: "/api/v1/connectors", permission: ["connector", "read"] },
  { method: "POST", path: "/api/v1/connectors", permission: ["connector", "create"], body: {} },
  { method: "GET", path: "/api/v1/connectors/{id}", permission: ["connector", "read"] },
  { method: "PUT", path: "/api/v1/connectors/{id}", permission: ["connector", "update"], body: {} },
  { method: "DELETE", path: "/api/v1/connectors/{id}", permission: ["connector", "delete"] },
  { method: "GET", path: "/api/v1/connectors/{id}/discover", permission: ["connector", "read"] },
  {
    method: "POST",
    path: "/api/v1/connectors/{id}/query_source",
    permission: ["connector", "read"],
    body: {},
  },
  // Without a body: a saved-configuration check (a body with configuration needs connector.update, see connectors-check.spec.ts).
  { method: "POST", path: "/api/v1/connectors/{id}/check", permission: ["connector", "read"] },
  { method: "POST", path: "/api/v1/catalogs", permission: ["connector", "create"], body: {} },
  { method: "PUT", path: "/api/v1/catalogs/{id}", permission: ["connector", "update"], body: {} },

  // Models
  { method: "GET", path: "/api/v1/models", permission: ["model", "read"] },
  { method: "POST", path: "/api/v1/models", permission: ["model", "create"], body: {} },
  { method: "GET", path: "/api/v1/models/{id}", permission: ["model", "read"] },
  { method: "PUT", path: "/api/v1/models/{id}", permission: ["model", "update"], body: {} },
  { method: "DELETE", path: "/api/v1/models/{id}", permission: ["model", "delete"] },

  // Syncs, runs, records
  { method: "GET", path: "/api/v1/syncs", permission: ["sync", "read"] },
  { method: "POST", path: "/api/v1/syncs", permission: ["sync", "create"], body: {} },
  { method: "GET", path: "/api/v1/syncs/configurations", permission: ["sync", "read"] },
  { method: "GET", path: "/api/v1/syncs/{id}", permission: ["sync", "read"] },
  { method: "PUT", path: "/api/v1/syncs/{id}", permission: ["sync", "update"], body: {} },
  { method: "DELETE", path: "/api/v1/syncs/{id}", permission: ["sync", "delete"] },
  { method: "PATCH", path: "/api/v1/syncs/{id}/enable", permission: ["sync", "update"], body: {} },
  { method: "POST", path: "/api/v1/schedule_syncs", permission: ["sync", "create"], body: {} },
  { method: "DELETE", path: "/api/v1/schedule_syncs/{sync_id}", permission: ["sync", "create"] },
  { method: "POST", path: "/enterprise/api/v1/syncs/{sync_id}/test", permission: ["sync", "create"] },
  { method: "GET", path: "/api/v1/syncs/{id}/sync_runs", permission: ["sync_run", "read"] },
  { method: "GET", path: "/api/v1/syncs/{id}/sync_runs/{run_id}", permission: ["sync_run", "read"] },
  {
    method: "GET",
    path: "/api/v1/syncs/{id}/sync_runs/{run_id}/sync_records",
    permission: ["sync_record", "read"],
  },
];

/** The path template without its query string, with placeholders normalised to `{}` for matching. */
export const pathKey = (path: string): string => path.split("?")[0].replace(/\{[^}]+\}/g, "{}");
