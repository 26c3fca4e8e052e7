// The permission matrix (docs/architecture.md, "API rules", 4; docs/security.md): the reference's
// system roles, plus the keys we add (role, api_token, audit_log). Every route names one (resource, action); `can()` is the only place that decides.

export const RESOURCES = [
  "connector_definition",
  "connector",
  "model",
  "report",
  "sync",
  "sync_run",
  "sync_record",
  "workspace",
  "user",
  "role",
  "api_token",
  "audit_log",
  "alert",
] as const;
export type Resource = (typeof RESOURCES)[number];

export const ACTIONS = ["create", "read", "update", "delete"] as const;
export type Action = (typeof ACTIONS)[number];

export type Crud = Record<Action, boolean>;
/** A type, not an interface: plain JSON, assignable to a Prisma Json column as it is. */
export type Policies = {
  permissions: Partial<Record<Resource, Crud>>;
};

const all: Crud = { create: true, read: true, update: true, delete: true };
const readOnly: Crud = { create: false, read: true, update: false, delete: false };
const none: Crud = { create: false, read: false, update: false, delete: false };

function matrix(pick: (resource: Resource) => Crud): Policies {
  return { permissions: Object.fromEntries(RESOURCES.map((r) => [r, { ...pick(r) }])) };
}

/** Resources a Member may fully manage; everything about the workspace itself is Admin's. */
const MEMBER_FULL = new Set<Resource>([
  "connector_definition",
  "connector",
  "model",
  "report",
  "sync",
  "sync_run",
  "sync_record",
  "alert",
  "audit_log",
  "api_token",
]);
const VIEWER_READ = new Set<Resource>([
  "connector_definition",
  "connector",
  "model",
  "report",
  "sync",
  "sync_run",
  "sync_record",
  "workspace",
  "alert",
]);

export interface SystemRoleSpec {
  name: "Admin" | "Member" | "Viewer";
  description: string;
  policies: Policies;
}

export const SYSTEM_ROLES: SystemRoleSpec[] = [
  {
    name: "Admin",
    description: "Full permissions for all resources and ability to manage workspace.",
    policies: matrix(() => all),
  },
  {
    name: "Member",
    description: "Full permissions for all resources, but no access to manage workspace.",
    policies: matrix((r) => (MEMBER_FULL.has(r) ? all : r === "workspace" ? readOnly : none)),
  },
  {
    name: "Viewer",
    description: "Read permissions for all resources.",
    policies: matrix((r) => (VIEWER_READ.has(r) ? readOnly : none)),
  },
];

export function can(policies: Policies | null | undefined, resource: Resource, action: Action): boolean {
  return policies?.permissions?.[resource]?.[action] === true;
}

/** The intersection of two policies: an API token's narrower role never widens the member's role. */
export function intersect(a: Policies, b: Policies): Policies {
  return matrix((r) => {
    const x = a.permissions[r] ?? none;
    const y = b.permissions[r] ?? none;
    return {
      create: x.create && y.create,
      read: x.read && y.read,
      update: x.update && y.update,
      delete: x.delete && y.delete,
    };
  });
}

/** The permissions `granted` holds that `holder` does not, as `resource.action`: what a grant would add. */
export function exceeding(holder: Policies, granted: Policies): string[] {
  const excess: string[] = [];
  for (const r of RESOURCES) {
    for (const a of ACTIONS) {
      if (can(granted, r, a) && !can(holder, r, a)) excess.push(`${r}.${a}`);
    }
  }
  return excess;
}

/** Whether every permission of `granted` is also held by `holder`. */
export const within = (holder: Policies, granted: Policies): boolean =>
  exceeding(holder, granted).length === 0;
