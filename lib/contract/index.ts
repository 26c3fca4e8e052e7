// Every operation of the API, from the per-resource declarations: the OpenAPI document and the
// tests walk this list (lib/openapi/document.test.ts checks it against the route files on disk).
import { accounts, apiTokens, authentication } from "./access";
import { alerts } from "./alerts";
import { config } from "./config";
import { catalogs, connectorDefinitions, connectors } from "./connectors";
import { models } from "./models";
import type { Operation } from "./operation";
import { auditAndReports, roles } from "./roles";
import { sequences } from "./sequences";
import { service, unknownPaths } from "./service";
import { syncRuns } from "./sync-runs";
import { syncs } from "./syncs";
import { webhooks } from "./webhooks";
import { workspaces } from "./workspaces";

export type { Operation, Permission } from "./operation";
export { TAGS, type Tag } from "./tags";

const GROUPS: Record<string, Operation>[] = [
  authentication,
  accounts,
  apiTokens,
  workspaces,
  roles,
  auditAndReports,
  connectorDefinitions,
  connectors,
  catalogs,
  models,
  syncs,
  syncRuns,
  alerts,
  webhooks,
  sequences,
  config,
  service,
];

export const OPERATIONS: Operation[] = [...GROUPS.flatMap((group) => Object.values(group)), ...unknownPaths];
