// Alert channels: where firing and resolved messages go (docs/alerts.md). The configuration is stored
// encrypted like a connector's, because a Slack incoming webhook URL is a credential: anyone holding
// it may post to the channel. A URL must pass the outbound network policy when saved (an early,
// clear 422) and again when sent (sendHttp checks the addresses it actually connects to).
// An email channel names at most ALERT_MAX_RECIPIENTS_PER_CHANNEL addresses, a workspace has at most
// ALERT_MAX_EMAIL_CHANNELS of them, and saving one asks its new addresses that are not members to
// confirm (./recipients.ts): the channel is no way to mail strangers.
import "server-only";
import { z } from "zod";
import { env } from "@/lib/settings/env";
import { assertHostAllowed, assertUrlAllowed } from "@/lib/net/policy";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { SECRET_MASK } from "@/lib/connectors/shared/secrets";
import { decryptJson, encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { Conflict, NotFound, ValidationFailed } from "@/lib/errors";
import type { AlertChannel } from "@/lib/generated/prisma/client";
import type { AlertChannelType } from "@/lib/generated/prisma/enums";
import type { Page } from "@/lib/page";
import { MAX_ALERT_CHANNELS, type CreateAlertChannelInput, type UpdateAlertChannelInput } from "@/lib/validation/alerts";
import { audit } from "../../insights/audit";
import type { AuthContext } from "../../accounts/auth-context";
import { inTransaction, type Tx } from "../../transaction";
import { alertCreates, assertRoomFor } from "./limits";
import { ensureSubscriptions, recipientStates, requestConfirmations, type RecipientState } from "./recipients";

type Auth = Pick<AuthContext, "workspaceId" | "user">;

/** The decrypted configuration of a channel: an email channel's recipients, or a webhook's (Slack's) URL. */
const channelConfigSchema = z.object({ recipients: z.array(z.string()).optional(), url: z.string().optional() });
export type ChannelConfig = z.infer<typeof channelConfigSchema>;

export const channelConfig = (channel: Pick<AlertChannel, "id" | "configurationEncrypted">): ChannelConfig =>
  decryptJson(channelConfigSchema, channel.configurationEncrypted, `configuration of alert channel ${channel.id}`);

/** Whether the URL of a channel of this type is a secret (masked in every answer). */
export const urlIsSecret = (type: AlertChannelType): boolean => type === "slack";

/** Refuses a URL the outbound policy would refuse to send to, as a 422 on alert_channel.url. */
async function assertChannelUrl(url: string): Promise<void> {
  try {
    const parsed = assertUrlAllowed(url);
    await assertHostAllowed(parsed.hostname.replace(/^\[(.*)\]$/, "$1"));
  } catch (err) {
    if (err instanceof ConnectorError) throw ValidationFailed.field("alert_channel.url", err.message);
    throw err;
  }
}

/** The configuration a channel of `type` keeps: only its own fields. */
async function configFor(type: AlertChannelType, input: { recipients?: string[] | null; url?: string | null }): Promise<ChannelConfig> {
  if (type === "email") {
    if (!input.recipients?.length) throw ValidationFailed.field("alert_channel.recipients", "is required for an email channel");
    const recipients = [...new Set(input.recipients.map((r) => r.trim().toLowerCase()))];
    const max = env.ALERT_MAX_RECIPIENTS_PER_CHANNEL;
    if (recipients.length > max) {
      throw ValidationFailed.field("alert_channel.recipients", `must be at most ${max} addresses (this server's ALERT_MAX_RECIPIENTS_PER_CHANNEL)`);
    }
    return { recipients };
  }
  if (!input.url) throw ValidationFailed.field("alert_channel.url", `is required for a ${type} channel`);
  await assertChannelUrl(input.url);
  return { url: input.url };
}

export async function listAlertChannels(workspaceId: number, page: Page) {
  const where = { workspaceId };
  const [rows, total] = await Promise.all([
    prisma().alertChannel.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: page.skip, take: page.take }),
    prisma().alertChannel.count({ where }),
  ]);
  return { rows, total };
}

export async function getAlertChannel(workspaceId: number, id: number, db: Tx = prisma()): Promise<AlertChannel> {
  const channel = await db.alertChannel.findFirst({ where: { id, workspaceId } });
  if (!channel) throw new NotFound(`Alert channel ${id} was not found.`);
  return channel;
}

/** A channel with the state of each of its recipients (email channels), as the API answers it. */
export type AlertChannelView = AlertChannel & { recipientStates: RecipientState[] | null };

export async function withRecipientStates(channel: AlertChannel): Promise<AlertChannelView> {
  const recipients = channel.channelType === "email" ? (channelConfig(channel).recipients ?? []) : null;
  return { ...channel, recipientStates: recipients ? await recipientStates(channel.workspaceId, recipients) : null };
}

/** Where the links of confirmation mails point: the request's console base (lib/settings/console-url.ts). */
export interface ChannelSaveOptions {
  linkBase?: string;
}

/**
 * After a save committed: confirmation mails for the channel's new addresses. Not in a caller's
 * transaction (config apply): its rows are not visible yet, so those go out at the channel's first
 * alert (senders.ts), within the same caps.
 */
async function afterSave(channel: AlertChannel, config: ChannelConfig, db: Tx | undefined, options: ChannelSaveOptions): Promise<void> {
  if (db || channel.channelType !== "email" || !config.recipients) return;
  await requestConfirmations(channel.workspaceId, config.recipients, { linkBase: options.linkBase });
}

/** In the caller's transaction `db` when given (config apply), else in one of its own; so for update and delete. */
export async function createAlertChannel(auth: Auth, input: CreateAlertChannelInput, db?: Tx, options: ChannelSaveOptions = {}): Promise<AlertChannel> {
  const config = await configFor(input.channel_type, input);
  const created = await inTransaction(db, async (tx) => {
    await assertRoomFor(tx, "channels", auth.workspaceId, MAX_ALERT_CHANNELS);
    if (input.channel_type === "email") await assertRoomFor(tx, "email_channels", auth.workspaceId, env.ALERT_MAX_EMAIL_CHANNELS);
    const channel = await tx.alertChannel.create({
      data: { workspaceId: auth.workspaceId, name: input.name, channelType: input.channel_type, configurationEncrypted: encryptJson(config) },
    });
    await ensureSubscriptions(tx, auth.workspaceId, config.recipients ?? []);
    await audit(auth, "create", "alert_channel", channel.id, { name: channel.name, channel_type: channel.channelType }, tx);
    return channel;
  }, alertCreates(auth.workspaceId));
  await afterSave(created, config, db, options);
  return created;
}

export async function updateAlertChannel(auth: Auth, id: number, input: UpdateAlertChannelInput, db?: Tx, options: ChannelSaveOptions = {}): Promise<AlertChannel> {
  const current = await getAlertChannel(auth.workspaceId, id, db);
  const stored = channelConfig(current);
  const type = input.channel_type ?? current.channelType;
  // The mask sent back (a form that shows it) keeps the stored URL; so does leaving url out.
  const keepsUrl = input.url === undefined || input.url === SECRET_MASK;
  // A secret URL is never carried into a type that shows its URL: the answer would reveal it.
  if (keepsUrl && stored.url && urlIsSecret(current.channelType) && type !== "email" && !urlIsSecret(type)) {
    throw ValidationFailed.field("alert_channel.url", `is required when a ${current.channelType} channel becomes a ${type} channel: its stored URL is a secret and is not kept`);
  }
  const url = keepsUrl ? stored.url : input.url;
  const config = await configFor(type, { recipients: input.recipients === undefined ? stored.recipients : input.recipients, url });
  const updated = await inTransaction(db, async (tx) => {
    if (type === "email" && current.channelType !== "email") await assertRoomFor(tx, "email_channels", auth.workspaceId, env.ALERT_MAX_EMAIL_CHANNELS);
    const channel = await tx.alertChannel.update({
      where: { id: current.id },
      data: { name: input.name ?? current.name, channelType: type, configurationEncrypted: encryptJson(config) },
    });
    await ensureSubscriptions(tx, auth.workspaceId, config.recipients ?? []);
    const changed = Object.keys(input).filter((k) => k !== "url" || input.url !== SECRET_MASK);
    await audit(auth, "update", "alert_channel", id, { name: channel.name, channel_type: type, changed }, tx);
    return channel;
  });
  await afterSave(updated, config, db, options);
  return updated;
}

/** 409 while a rule sends to it: the rule would lose a channel without anyone noticing. */
export async function deleteAlertChannel(auth: Auth, id: number, db?: Tx): Promise<void> {
  const channel = await getAlertChannel(auth.workspaceId, id, db);
  await inTransaction(db, async (tx) => {
    const users = await tx.alertRule.findMany({ where: { workspaceId: auth.workspaceId, channelIds: { has: id } }, select: { name: true } });
    if (users.length > 0) {
      throw new Conflict(`Alert channel ${id} is used by the rule(s) ${users.map((u) => `"${u.name}"`).join(", ")}; remove it from them first.`);
    }
    await tx.alertChannel.delete({ where: { id } });
    await audit(auth, "delete", "alert_channel", id, { name: channel.name, channel_type: channel.channelType }, tx);
  });
}
