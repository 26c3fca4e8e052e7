// The sentence of a 403 for want of a permission: who is refused (you, or this API token and which
// role) and what, in the verb a person would use ("run syncs", not "create syncs"). Every refusal
// of the permission matrix is phrased here, so a token's refusal never names its owner's role as if
// it were the token's, and an action is never described by the CRUD key that guards it.
import { can, type Action, type Policies, type Resource } from "./permissions";

/** What a role may not do, by permission, where no operation names it more precisely. */
export const PERMISSION_VERBS: Record<Resource, Record<Action, string>> = {
  connector_definition: {
    create: "check connections",
    read: "see connector definitions",
    update: "change connector definitions",
    delete: "delete connector definitions",
  },
  connector: { create: "create connectors", read: "see connectors", update: "change connectors", delete: "delete connectors" },
  model: { create: "create models", read: "see models", update: "change models", delete: "delete models" },
  report: { create: "create reports", read: "see reports", update: "change reports", delete: "delete reports" },
  sync: { create: "create syncs", read: "see syncs", update: "change syncs", delete: "delete syncs" },
  sync_run: { create: "run syncs", read: "see sync runs", update: "change sync runs", delete: "delete sync runs" },
  sync_record: { create: "create sync records", read: "see sync records", update: "change sync records", delete: "delete sync records" },
  workspace: { create: "create workspaces", read: "see this workspace", update: "change this workspace", delete: "delete this workspace" },
  user: { create: "invite members", read: "see the members", update: "change members' roles", delete: "remove members" },
  role: { create: "create roles", read: "see roles", update: "change roles", delete: "delete roles" },
  api_token: { create: "create API tokens", read: "see API tokens", update: "change API tokens", delete: "revoke API tokens" },
  audit_log: { create: "write to the audit log", read: "read the audit log", update: "change the audit log", delete: "delete from the audit log" },
  alert: { create: "create alerts", read: "see alerts", update: "change alerts", delete: "delete alerts" },
  webhook_subscription: {
    create: "create webhook subscriptions",
    read: "see webhook subscriptions",
    update: "change webhook subscriptions",
    delete: "delete webhook subscriptions",
  },
};

/** The caller as a refusal needs it (an AuthContext, or a workspace's view of it). */
export interface Refused {
  /** The member's role in the workspace. */
  roleName: string;
  /** Set for an API token: its own narrowing role, or null when it acts with its owner's. */
  apiToken?: { role: { name: string; policies: Policies } | null };
}

/**
 * "<who> may not <verb>", without a full stop (callers may go on). For an API token it names the
 * role that refuses: the token's own when that one lacks a permission `needs` lists, else its
 * owner's, which bounds every token (lib/services/accounts/auth-context.ts intersects the two).
 */
export function mayNot(caller: Refused, verb: string, needs: readonly (readonly [Resource, Action])[] = []): string {
  if (!caller.apiToken) return `Your role (${caller.roleName}) may not ${verb}`;
  const own = caller.apiToken.role;
  if (!own) return `This API token has its owner's role (${caller.roleName}), which may not ${verb}`;
  if (needs.length === 0 || needs.some(([resource, action]) => !can(own.policies, resource, action))) {
    return `This API token has the ${own.name} role, which may not ${verb}`;
  }
  return `This API token's owner has the ${caller.roleName} role in this workspace, which may not ${verb} (a token never has more rights than its owner)`;
}

/** The whole sentence of a refusal for one permission, with `verb` naming the action (default: the permission's). */
export function refusal(caller: Refused, resource: Resource, action: Action, verb = PERMISSION_VERBS[resource][action]): string {
  return `${mayNot(caller, verb, [[resource, action]])}.`;
}
