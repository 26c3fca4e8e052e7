// What an edit of an alert rule sends: only the fields the person changed. The update checks every
// reference it is sent, so sending the unchanged sync of a rule whose sync was deleted would refuse
// even a rename (422 "sync N was not found").
import type { CreateAlertRuleInput, UpdateAlertRuleInput } from "@/lib/validation/alerts";

/** react-hook-form's dirtyFields for the rule: true (or, for a list, an array with a true) where changed. */
export type RuleDirtyFields = Partial<Record<keyof CreateAlertRuleInput, unknown>>;

const changed = (mark: unknown): boolean => (Array.isArray(mark) ? mark.some(changed) : mark === true || (typeof mark === "object" && mark !== null));

/**
 * The update body for the edited `values`. A changed condition takes its threshold along (cleared
 * when the new condition has none), since the server checks the pair together.
 */
export function ruleChanges(values: CreateAlertRuleInput, dirty: RuleDirtyFields, hasThreshold: boolean): UpdateAlertRuleInput {
  const out: UpdateAlertRuleInput = {};
  if (changed(dirty.name)) out.name = values.name;
  if (changed(dirty.sync_id)) out.sync_id = values.sync_id ?? null;
  if (changed(dirty.channel_ids)) out.channel_ids = values.channel_ids;
  if (changed(dirty.condition)) out.condition = values.condition;
  if (changed(dirty.condition) || (hasThreshold && changed(dirty.threshold))) out.threshold = hasThreshold ? values.threshold : null;
  return out;
}
