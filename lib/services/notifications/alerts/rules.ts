// Alert rules: a condition on the runs of one sync or of every sync of the workspace, and the
// channels that hear about it (docs/alerts.md). Evaluation: evaluate.ts; states are kept per sync.
import "server-only";
import { prisma } from "@/lib/db/client";
import { NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import type { Page } from "@/lib/page";
import { MAX_ALERT_RULES, thresholdProblem, THRESHOLD_UNITS, type CreateAlertRuleInput, type UpdateAlertRuleInput } from "@/lib/validation/alerts";
import { audit } from "../../insights/audit";
import type { AuthContext } from "../../accounts/auth-context";
import { inTransaction, type Tx } from "../../transaction";
import { alertCreates, assertRoomFor } from "./limits";

type Auth = Pick<AuthContext, "workspaceId" | "user">;

const withFiring = { states: { where: { status: "firing" as const }, orderBy: { syncId: "asc" as const } } };

/** The sync and channels a rule names must be of this workspace: otherwise a 422 on the field. */
async function checkReferences(tx: Tx, workspaceId: number, syncId: number | null, channelIds: number[]): Promise<void> {
  const errors: FieldError[] = [];
  if (syncId !== null) {
    const sync = await tx.sync.findFirst({ where: { id: syncId, workspaceId, deletedAt: null }, select: { id: true } });
    if (!sync) errors.push({ path: "alert_rule.sync_id", message: `sync ${syncId} was not found in this workspace` });
  }
  const found = await tx.alertChannel.findMany({ where: { workspaceId, id: { in: channelIds } }, select: { id: true } });
  const missing = channelIds.filter((id) => !found.some((c) => c.id === id));
  if (missing.length > 0) errors.push({ path: "alert_rule.channel_ids", message: `alert channel(s) ${missing.join(", ")} were not found in this workspace` });
  if (errors.length > 0) throw ValidationFailed.fromFields(errors);
}

export async function listAlertRules(workspaceId: number, page: Page) {
  const where = { workspaceId };
  const [rows, total] = await Promise.all([
    prisma().alertRule.findMany({ where, include: withFiring, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: page.skip, take: page.take }),
    prisma().alertRule.count({ where }),
  ]);
  return { rows, total };
}

export async function getAlertRule(workspaceId: number, id: number, db: Tx = prisma()) {
  const rule = await db.alertRule.findFirst({ where: { id, workspaceId }, include: withFiring });
  if (!rule) throw new NotFound(`Alert rule ${id} was not found.`);
  return rule;
}
export type AlertRuleRow = Awaited<ReturnType<typeof getAlertRule>>;

/** In the caller's transaction `db` when given (config apply), else in one of its own; so for update and delete. */
export async function createAlertRule(auth: Auth, input: CreateAlertRuleInput, db?: Tx): Promise<AlertRuleRow> {
  const channelIds = [...new Set(input.channel_ids)];
  return inTransaction(db, async (tx) => {
    await assertRoomFor(tx, "rules", auth.workspaceId, MAX_ALERT_RULES);
    await checkReferences(tx, auth.workspaceId, input.sync_id ?? null, channelIds);
    const rule = await tx.alertRule.create({
      data: {
        workspaceId: auth.workspaceId,
        syncId: input.sync_id ?? null,
        name: input.name,
        condition: input.condition,
        threshold: THRESHOLD_UNITS[input.condition] ? (input.threshold ?? null) : null,
        channelIds,
        enabled: input.enabled ?? true,
      },
      include: withFiring,
    });
    await audit(auth, "create", "alert_rule", rule.id, { name: rule.name, condition: rule.condition, sync_id: rule.syncId }, tx);
    return rule;
  }, alertCreates(auth.workspaceId));
}

/**
 * A change of what the rule watches (condition, threshold, sync) starts it afresh: its states are
 * dropped, so it fires again only if the new condition holds. Renaming or changing channels keeps them.
 */
export async function updateAlertRule(auth: Auth, id: number, input: UpdateAlertRuleInput, db?: Tx): Promise<AlertRuleRow> {
  const current = await getAlertRule(auth.workspaceId, id, db);
  const condition = input.condition ?? current.condition;
  const threshold = THRESHOLD_UNITS[condition] ? (input.threshold === undefined ? current.threshold : input.threshold) : null;
  const problem = thresholdProblem(condition, threshold);
  if (problem) throw ValidationFailed.field("alert_rule.threshold", problem);
  const syncId = input.sync_id === undefined ? current.syncId : input.sync_id;
  const channelIds = input.channel_ids ? [...new Set(input.channel_ids)] : current.channelIds;
  const rewatch = condition !== current.condition || threshold !== current.threshold || syncId !== current.syncId || input.enabled === false;
  return inTransaction(db, async (tx) => {
    // Only what the update names is checked: a rule whose sync was deleted can still be renamed.
    await checkReferences(tx, auth.workspaceId, input.sync_id !== undefined ? syncId : null, input.channel_ids ? channelIds : []);
    if (rewatch) await tx.alertState.deleteMany({ where: { alertRuleId: id } });
    const rule = await tx.alertRule.update({
      where: { id },
      data: { name: input.name ?? current.name, condition, threshold, syncId, channelIds, enabled: input.enabled ?? current.enabled },
      include: withFiring,
    });
    await audit(auth, "update", "alert_rule", id, { name: rule.name, changed: Object.keys(input) }, tx);
    return rule;
  });
}

export async function deleteAlertRule(auth: Auth, id: number, db?: Tx): Promise<void> {
  const rule = await getAlertRule(auth.workspaceId, id, db);
  await inTransaction(db, async (tx) => {
    await tx.alertRule.delete({ where: { id } });
    await tx.alertEvent.updateMany({ where: { alertRuleId: id }, data: { alertRuleId: null } });
    await audit(auth, "delete", "alert_rule", id, { name: rule.name, condition: rule.condition }, tx);
  });
}
