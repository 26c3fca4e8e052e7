// The verb of an operation's 403 where the permission guarding it would misname it: running a sync
// needs "create" on syncs, but a Viewer is told it "may not run syncs". Operations not listed here
// are the permission's own action (lib/auth/refusal.ts, PERMISSION_VERBS); refusal-verbs.test.ts
// checks that every key is an operation with a [resource, action] permission.
import { PERMISSION_VERBS } from "@/lib/auth/refusal";
import type { Operation } from "./operation";

export const OPERATION_VERBS: Readonly<Record<string, string>> = {
  // sync.create
  scheduleSync: "run syncs",
  startSequenceRun: "run syncs",
  cancelSync: "cancel sync runs",
  cancelSyncRun: "cancel sync runs",
  approveSyncRun: "approve held sync runs",
  planSync: "preview what syncs would change",
  testSync: "send test rows through syncs",
  // sync.update
  enableSync: "enable or disable syncs",
  setRunAfter: "change the order syncs run in",
  // sync.read
  getSyncConfigurations: "see syncs' mapping types",
  getRunAfter: "see the order syncs run in",
  // connectors and their catalogs
  discoverConnector: "see connectors' streams",
  checkConnector: "check connectors",
  createCatalog: "change connectors' catalogs",
  updateCatalog: "change connectors' catalogs",
  querySource: "run queries on sources",
  // alerts: one permission for channels, rules and events
  listAlertChannels: "see alert channels",
  createAlertChannel: "create alert channels",
  getAlertChannel: "see alert channels",
  updateAlertChannel: "change alert channels",
  deleteAlertChannel: "delete alert channels",
  testAlertChannel: "send test alerts",
  listAlertRules: "see alert rules",
  createAlertRule: "create alert rules",
  getAlertRule: "see alert rules",
  updateAlertRule: "change alert rules",
  deleteAlertRule: "delete alert rules",
  listAlertEvents: "see alert events",
  // webhook_subscription.update
  rotateWebhookSecret: "rotate webhook secrets",
  testWebhookSubscription: "send test webhook events",
  redeliverWebhookDelivery: "redeliver webhook events",
  listWebhookDeliveries: "see webhook deliveries",
  // sync_run.read
  getSequenceRun: "see sequence runs",
  // report.read
  getReport: "see the workspace's reports",
};

/** What a caller refused `op` may not do, in words. */
export function refusalVerb(op: Pick<Operation, "operationId" | "permission">): string {
  const listed = OPERATION_VERBS[op.operationId];
  if (listed) return listed;
  if (typeof op.permission !== "object") throw new Error(`${op.operationId} has no permission to refuse`);
  const [resource, action] = op.permission;
  return PERMISSION_VERBS[resource][action];
}
