// What an edit of an alert rule sends: only the fields the person changed. The update checks every
// reference it is sent, so sending the unchanged sync of a rule whose sync was deleted would refuse
// even a rename (422 "sync N was not found"). Compared with the rule as the dialog opened it (what
// react-hook-form's dirtyFields does, without depending on the form having subscribed to them).
import type { CreateAlertRuleInput, UpdateAlertRuleInput } from "@/lib/validation/alerts";

const sameIds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * The update body for the edited `values` of the rule that was `before`. A changed condition takes
 * its threshold along (cleared when the new condition has none), since the server checks the pair.
 */
export function ruleChanges(values: CreateAlertRuleInput, before: CreateAlertRuleInput, hasThreshold: boolean): UpdateAlertRuleInput {
  const out: UpdateAlertRuleInput = {};
  if (values.name !== before.name) out.name = values.name;
  if ((values.sync_id ?? null) !== (before.sync_id ?? null)) out.sync_id = values.sync_id ?? null;
  if (!sameIds(values.channel_ids, before.channel_ids)) out.channel_ids = values.channel_ids;
  const threshold = hasThreshold ? (values.threshold ?? null) : null;
  if (values.condition !== before.condition) Object.assign(out, { condition: values.condition, threshold });
  else if (hasThreshold && threshold !== (before.threshold ?? null)) out.threshold = threshold;
  return out;
}
