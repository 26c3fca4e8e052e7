// Every endpoint of the API as the permission-matrix and sweep specs walk it: method, path and
// permission come from the operation declarations (lib/contract); this file adds only what the
// tests need on top: a body, and flags for the endpoints they must treat apart.
//
// Path placeholders: {workspace_id} is the test's workspace (the `{id}` of an operation checked in
// the workspace of its path), {name} a connector definition name; any other {…} is an id that does
// not exist (so allowed calls end in a harmless 404/422 instead of changing data).
import { OPERATIONS, type Permission } from "../../lib/contract";

export interface Endpoint {
  operationId: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  permission: Permission;
  /**
   * The wrapper only requires membership and the service checks `permission` in the workspace of
   * the path (workspace and member endpoints), after parsing the body: such endpoints get a valid body.
   */
  checkedInPath?: boolean;
  /** A request body; a function gets the role ids of the test workspace. */
  body?: unknown | ((ctx: { roles: Record<string, number> }) => unknown);
  /** Revokes the caller's session (logout): the matrix signs in afresh for it. */
  revokesSession?: boolean;
  /** Not part of the REST API (console sign-in internals, catch-alls): listed for completeness, not walked. */
  skip?: string;
  /**
   * Switched off unless the operator sets this variable (the test server does not): its 403 is the
   * switch, the same for everyone, not a permission.
   */
  offUnless?: string;
  /** A query string the endpoint needs. */
  query?: string;
}

type Flags = Pick<Endpoint, "body" | "revokesSession" | "skip" | "offUnless" | "query">;

const METHODS = { get: "GET", post: "POST", put: "PUT", patch: "PATCH", delete: "DELETE" } as const;

const uniqueEmail = () => `matrix-${Math.random().toString(36).slice(2, 10)}@example.com`;

/** What the tests add per operation; an operation without an entry is called without a body. */
const FLAGS: Record<string, Flags> = {
  createSetup: { body: {} },
  login: { body: {} },
  logout: { revokesSession: true },
  // An empty body: every role reaches validation (422) and no password changes.
  changePassword: { body: {} },
  // Accounts: empty bodies and a missing token end in validation (422/400), sending no mail.
  signup: { body: {}, offUnless: "SIGNUP_ENABLED" },
  forgotPassword: { body: {} },
  resetPassword: { body: {} },
  acceptInvitation: { body: {} },
  resendVerification: { body: {} },
  createApiToken: { body: {} },
  createWorkspace: { body: {} },
  updateWorkspace: { body: { workspace: { name: "Permissions matrix" } } },
  createMember: {
    body: ({ roles }: { roles: Record<string, number> }) => ({
      member: { email: uniqueEmail(), name: "Matrix", role_id: roles.Viewer },
    }),
  },
  updateMember: { body: ({ roles }: { roles: Record<string, number> }) => ({ member: { role_id: roles.Viewer } }) },
  createRole: { body: {} },
  updateRole: { body: { role: {} } },
  getReport: { query: "type=workspace_activity" },
  checkConnection: { body: {} },
  createConnector: { body: {} },
  updateConnector: { body: {} },
  querySource: { body: {} },
  // checkConnector goes without a body: a saved-configuration check (a body with configuration
  // needs connector.update, see connectors-check.spec.ts).
  createCatalog: { body: {} },
  updateCatalog: { body: {} },
  createModel: { body: {} },
  updateModel: { body: {} },
  createSync: { body: {} },
  updateSync: { body: {} },
  enableSync: { body: {} },
  scheduleSync: { body: {} },
  createWebhookSubscription: { body: {} },
  updateWebhookSubscription: { body: {} },
  setRunAfter: { body: {} },
  // Alert links: an empty body ends in validation (422), confirming and unsubscribing nothing.
  confirmAlertSubscription: { body: {} },
  unsubscribeAlertSubscription: { body: {} },
  // A document that lists no entries: every role reaches the service, which changes nothing.
  planConfig: { body: { version: 1 } },
  applyConfig: { body: { version: 1 } },
};

export const ENDPOINTS: Endpoint[] = OPERATIONS.map((op) => {
  const path = op.inPathWorkspace ? op.path.replace("{id}", "{workspace_id}") : op.path;
  const flags = FLAGS[op.operationId] ?? {};
  return {
    operationId: op.operationId,
    method: METHODS[op.method],
    path: flags.query ? `${path}?${flags.query}` : path,
    permission: op.permission,
    ...(op.inPathWorkspace ? { checkedInPath: true } : {}),
    ...(op.external ? { skip: "next-auth internals" } : {}),
    ...(op.catchAll ? { skip: "not an endpoint: unknown API paths answer a JSON 404" } : {}),
    ...flags,
  };
});

/** The operations FLAGS names must exist: a renamed operation would silently lose its body. */
export const UNKNOWN_FLAGGED = Object.keys(FLAGS).filter((id) => !OPERATIONS.some((op) => op.operationId === id));

/** The path template without its query string, with placeholders normalised to `{}` for matching. */
export const pathKey = (path: string): string => path.split("?")[0].replace(/\{[^}]+\}/g, "{}");
