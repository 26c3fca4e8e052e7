// The groups of the API reference, in the order /docs/api shows them.
export const TAGS = [
  { name: "Authentication", description: "Sign in and out; the signed-in user." },
  {
    name: "Accounts",
    description:
      "Self sign-up (when enabled), email verification and password reset; public, throttled, never telling whether an address has an account.",
  },
  { name: "API tokens", description: "Long-lived tokens bound to one workspace, optionally narrowed to a role." },
  { name: "Workspaces", description: "Workspaces and their members; checked against your role in the workspace of the path." },
  { name: "Roles", description: "System roles (read-only) and custom roles of the workspace." },
  { name: "Audit log", description: "Who created, changed or deleted what." },
  { name: "Reports", description: "Dashboard series." },
  { name: "Connector definitions", description: "The kinds of connectors this server supports." },
  { name: "Connectors", description: "Sources and destinations of the workspace." },
  { name: "Catalogs", description: "Streams of a destination and their request settings." },
  { name: "Models", description: "Queries that define what a sync reads." },
  { name: "Syncs", description: "Source + model → destination on a schedule." },
  { name: "Sync runs", description: "Runs of a sync and the records they sent." },
  { name: "Alerts", description: "Rules on sync runs, the channels that hear when one fires or resolves, and the events sent." },
  { name: "Webhooks", description: "Run lifecycle events POSTed, signed, to your URLs; delivery log and redelivery (docs/webhooks.md)." },
  { name: "Sequences", description: "Syncs that run after other syncs succeed, and sequence runs that start a chain." },
  { name: "Configuration", description: "The workspace's connectors, models and syncs as one YAML document: export, plan, apply." },
  { name: "Service", description: "Health, readiness, metrics, first-run setup and this document." },
] as const;

export type Tag = (typeof TAGS)[number]["name"];
