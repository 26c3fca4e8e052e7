// The configuration an adapter gets: the stored one with ENV['X'] placeholders resolved and, for
// workspace-scoped connectors, the workspace it belongs to (set here, never taken from the tenant).
import { resolveEnvPlaceholders } from "./env-placeholders";
import type { ConnectorDefinition, Row } from "./types";

/** Where a workspace-scoped adapter finds its workspace's id (see ConnectorDefinition.workspaceScoped). */
export const WORKSPACE_ID_KEY = "__workspace_id";

/** Throws EnvironmentPlaceholderError like resolveEnvPlaceholders. */
export function adapterConfig(definition: ConnectorDefinition, stored: Row, workspaceId: number): Row {
  const config = resolveEnvPlaceholders(stored);
  return definition.workspaceScoped ? { ...config, [WORKSPACE_ID_KEY]: workspaceId } : config;
}

/** The workspace id the server set, or undefined when the adapter was called without one. */
export function scopedWorkspaceId(config: Row): number | undefined {
  const id = config[WORKSPACE_ID_KEY];
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
