// The console's navigation. An entry whose page needs a permission is shown only to roles that
// have it: a Member never meets a Members page that only says "forbidden".
import type { Policies } from "@/lib/auth/permissions";
import type { IconName } from "./icons";

type Permissions = NonNullable<Policies["permissions"]>;

/** Each entry has an icon of its own (no two share one), so the sidebar reads at a glance. */
export interface NavItem {
  href: string;
  label: string;
  icon: IconName;
  /** The permission the page's main request needs; absent when every member may open it. */
  need?: [keyof Permissions, "read"];
}

export const NAV: NavItem[] = [
  { href: "/dashboard", label: "Dashboard", icon: "dashboard" },
  { href: "/sources", label: "Sources", icon: "source" },
  { href: "/destinations", label: "Destinations", icon: "destination" },
  { href: "/models", label: "Models", icon: "model" },
  { href: "/syncs", label: "Syncs", icon: "sync" },
];

export const SETTINGS: NavItem[] = [
  { href: "/settings/members", label: "Members", icon: "members", need: ["user", "read"] },
  { href: "/settings/roles", label: "Roles", icon: "roles" },
  { href: "/settings/api-tokens", label: "API tokens", icon: "key", need: ["api_token", "read"] },
  { href: "/settings/alerts", label: "Alerts", icon: "bell", need: ["alert", "read"] },
  { href: "/settings/webhooks", label: "Webhooks", icon: "bolt", need: ["webhook_subscription", "read"] },
  { href: "/settings/audit-log", label: "Audit log", icon: "audit", need: ["audit_log", "read"] },
  { href: "/settings/password", label: "Password", icon: "lock" },
];

/** Whether a role with `permissions` may open the entry. */
export function allowed(item: NavItem, permissions: Permissions | undefined): boolean {
  return !item.need || permissions?.[item.need[0]]?.[item.need[1]] === true;
}
