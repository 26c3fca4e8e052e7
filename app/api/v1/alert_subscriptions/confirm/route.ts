// POST /api/v1/alert_subscriptions/confirm - the confirmation link of an alert address: from now on it gets the workspace's alerts.
import { alerts } from "@/lib/contract/alerts";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { confirmAlertSubscription } from "@/lib/services/notifications/alerts";

export const POST = route(alerts.confirmAlertSubscription, async ({ req, body }) => {
  const { email } = await confirmAlertSubscription(body.token, { ip: clientAddress(req.headers) });
  return messageResource(`Confirmed: ${email} now gets this workspace's alert mails. Each mail has a link to stop them.`);
});
