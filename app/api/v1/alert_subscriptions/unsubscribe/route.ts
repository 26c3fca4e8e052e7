// POST /api/v1/alert_subscriptions/unsubscribe - the unsubscribe link of an alert mail: that workspace mails the address no more.
import { alerts } from "@/lib/contract/alerts";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { unsubscribeAlertSubscription } from "@/lib/services/notifications/alerts";

export const POST = route(alerts.unsubscribeAlertSubscription, async ({ req, body }) => {
  const { email } = await unsubscribeAlertSubscription(body.token, { ip: clientAddress(req.headers) });
  return messageResource(`Unsubscribed: ${email} gets no more alert mails from this workspace.`);
});
