// POST /api/v1/alert_channels/{id}/test - send the channel a test message and answer how it went.
import { alerts } from "@/lib/contract/alerts";
import { route } from "@/lib/http/handler";
import { serializeAlertTestResult } from "@/lib/serializers/alerts";
import { testAlertChannel } from "@/lib/services/notifications/alerts";

export const POST = route(alerts.testAlertChannel, async ({ auth, params }) => serializeAlertTestResult(await testAlertChannel(auth, params.id)));
