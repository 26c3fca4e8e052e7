// GET /api/v1/alert_rules - list the workspace's alert rules; POST - create one.
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeAlertRule } from "@/lib/serializers/alerts";
import { createAlertRule, listAlertRules } from "@/lib/services/notifications/alerts";

export const GET = route(alerts.listAlertRules, async ({ auth, url, query: { page } }) => {
  const { rows, total } = await listAlertRules(auth.workspaceId, page);
  return { data: rows.map(serializeAlertRule), ...pageLinks(url, page, total) };
});

export const POST = route(alerts.createAlertRule, async ({ auth, body }) => ({
  data: serializeAlertRule(await createAlertRule(auth, body.alert_rule)),
}));
