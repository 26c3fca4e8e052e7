// The alert events of a workspace (the console's "Alert events" list): every firing and resolved
// message with how each channel's delivery went, so an email logged for want of SMTP is still read.
// Also the channel test: one message sent now, its result answered.
import "server-only";
import { prisma } from "@/lib/db/client";
import { RateLimited } from "@/lib/errors";
import type { Page } from "@/lib/page";
import type { ListAlertEventsQuery } from "@/lib/validation/alerts";
import { audit } from "../../insights/audit";
import type { AuthContext } from "../../accounts/auth-context";
import { getAlertChannel } from "./channels";
import { testMessage } from "./messages";
import { sendToChannel, type SendResult } from "./senders";

export async function listAlertEvents(workspaceId: number, filters: ListAlertEventsQuery, page: Page) {
  const where = {
    workspaceId,
    ...(filters.alert_rule_id ? { alertRuleId: filters.alert_rule_id } : {}),
    ...(filters.sync_id ? { syncId: filters.sync_id } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma().alertEvent.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: page.skip,
      take: page.take,
    }),
    prisma().alertEvent.count({ where }),
  ]);
  return { rows, total };
}

export interface ChannelTestResult extends SendResult {
  channelId: number;
  subject: string;
  message: string;
}

/**
 * Sends the channel's test message and answers how it went. The one send in a request, because the
 * person pressing the button waits for exactly this answer; bounded by ALERT_HTTP_TIMEOUT_MS.
 */
export async function testAlertChannel(
  auth: Pick<AuthContext, "workspaceId" | "user">,
  id: number,
): Promise<ChannelTestResult> {
  const channel = await getAlertChannel(auth.workspaceId, id);
  await assertTestAllowed(auth.workspaceId);
  const message = testMessage(channel);
  const result = await sendToChannel(channel, message);
  await audit(auth, "test", "alert_channel", id, { name: channel.name, status: result.status });
  return { ...result, channelId: id, subject: message.subject, message: message.text };
}

/**
 * Test messages a workspace may send in a minute. A test mails every recipient of an email channel
 * (up to 50 addresses the member typed), so without a bound the button would mail anyone at will.
 * Counted from the audit log, which records every test: shared by every web process.
 */
export const CHANNEL_TESTS_PER_MINUTE = 5;

async function assertTestAllowed(workspaceId: number): Promise<void> {
  const recent = await prisma().auditLog.count({
    where: {
      workspaceId,
      resourceType: "alert_channel",
      action: "test",
      createdAt: { gt: new Date(Date.now() - 60_000) },
    },
  });
  if (recent >= CHANNEL_TESTS_PER_MINUTE) {
    throw new RateLimited(
      `This workspace has sent ${CHANNEL_TESTS_PER_MINUTE} test messages in the last minute, the most it may; try again in a minute.`,
      { headers: { "Retry-After": "60" } },
    );
  }
}
