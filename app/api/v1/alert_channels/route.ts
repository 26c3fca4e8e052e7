// GET /api/v1/alert_channels - list the workspace's alert channels; POST - create one (new addresses are asked to confirm).
import { consoleBase } from "@/lib/settings/console-url";
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeAlertChannel } from "@/lib/serializers/alerts";
import { createAlertChannel, listAlertChannels, withRecipientStates } from "@/lib/services/notifications/alerts";

export const GET = route(alerts.listAlertChannels, async ({ auth, url, query: { page } }) => {
  const { rows, total } = await listAlertChannels(auth.workspaceId, page);
  return { data: (await Promise.all(rows.map(withRecipientStates))).map(serializeAlertChannel), ...pageLinks(url, page, total) };
});

export const POST = route(alerts.createAlertChannel, async ({ auth, url, body }) => ({
  data: serializeAlertChannel(await withRecipientStates(await createAlertChannel(auth, body.alert_channel, undefined, { linkBase: consoleBase(url) }))),
}));
