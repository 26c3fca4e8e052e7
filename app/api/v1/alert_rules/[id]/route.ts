// GET/PUT/DELETE /api/v1/alert_rules/{id} - show, update or delete an alert rule.
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { serializeAlertRule } from "@/lib/serializers/alerts";
import { deleteAlertRule, getAlertRule, updateAlertRule } from "@/lib/services/notifications/alerts";

export const GET = route(alerts.getAlertRule, async ({ auth, params }) => ({
  data: serializeAlertRule(await getAlertRule(auth.workspaceId, params.id)),
}));

export const PUT = route(alerts.updateAlertRule, async ({ auth, params, body }) => ({
  data: serializeAlertRule(await updateAlertRule(auth, params.id, body.alert_rule)),
}));

export const DELETE = route(alerts.deleteAlertRule, async ({ auth, params }) => {
  await deleteAlertRule(auth, params.id);
});
