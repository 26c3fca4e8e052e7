// GET /api/v1/alert_events - the workspace's alert events (filter alert_rule_id, sync_id), newest first.
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeAlertEvent } from "@/lib/serializers/alerts";
import { listAlertEvents } from "@/lib/services/notifications/alerts";

export const GET = route(alerts.listAlertEvents, async ({ auth, url, query: { page, ...filters } }) => {
  const { rows, total } = await listAlertEvents(auth.workspaceId, filters, page);
  return { data: rows.map(serializeAlertEvent), ...pageLinks(url, page, total) };
});
