// GET/PUT/DELETE /api/v1/alert_channels/{id} - show, update or delete an alert channel (409 while a rule uses it).
import { consoleBase } from "@/lib/settings/console-url";
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { serializeAlertChannel } from "@/lib/serializers/alerts";
import { deleteAlertChannel, getAlertChannel, updateAlertChannel, withRecipientStates } from "@/lib/services/notifications/alerts";

export const GET = route(alerts.getAlertChannel, async ({ auth, params }) => ({
  data: serializeAlertChannel(await withRecipientStates(await getAlertChannel(auth.workspaceId, params.id))),
}));

export const PUT = route(alerts.updateAlertChannel, async ({ auth, url, params, body }) => ({
  data: serializeAlertChannel(await withRecipientStates(await updateAlertChannel(auth, params.id, body.alert_channel, undefined, { linkBase: consoleBase(url) }))),
}));

export const DELETE = route(alerts.deleteAlertChannel, async ({ auth, params }) => {
  await deleteAlertChannel(auth, params.id);
});
