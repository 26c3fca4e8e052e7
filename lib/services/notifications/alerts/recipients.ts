// Who may receive a workspace's alert mails (docs/alerts.md, docs/security.md "Alert mail"): the
// workspace's members by their verified account address at once; any other address only after it
// confirmed through a mailed link; nobody who unsubscribed through the link in an alert mail. One
// alert_subscriptions row per workspace and address keeps that state, and outlives the address's
// removal from a channel, so re-adding it neither mails it again inside the window nor undoes an
// unsubscribe. Links are single-use hashed tokens (./link-tokens, as the account links).
import "server-only";
import { env } from "@/lib/settings/env";
import { configuredConsoleUrl } from "@/lib/settings/console-url";
import { decrypt, encrypt } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { ValidationFailed } from "@/lib/errors";
import type { AlertSubscription } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { sendInBackground, type MailMessage } from "@/lib/mail";
import { hashLinkToken, newLinkToken } from "../../accounts/link-tokens";
import { throttleAccountRequest } from "../../accounts/account-throttle";
import { reserveInWindow } from "../../accounts/login-throttle";
import type { Tx } from "../../transaction";
import { quoted } from "./subject";

/** How long a confirmation link works. */
export const CONFIRM_TTL_HOURS = 72;
/** One confirmation mail per workspace and address in this time, however often it is re-added. */
export const CONFIRM_RESEND_HOURS = 24;
/** Confirmation mails one address gets from all workspaces together in a day. */
export const CONFIRMATIONS_PER_ADDRESS_PER_DAY = 3;

export type RecipientStatus = "member" | "confirmed" | "pending" | "unsubscribed";

export interface RecipientState {
  email: string;
  status: RecipientStatus;
  /** When the last confirmation mail went out (pending addresses); null: none yet (a cap held it back). */
  confirmationSentAt: Date | null;
}

/** Where the console's pages for the links are; a bare path when CONSOLE_URL is unset (mail is then only logged). */
const linkTo = (path: string, token: string, base = configuredConsoleUrl() ?? "") =>
  `${base}${path}?${new URLSearchParams({ token }).toString()}`;

/** The verified account addresses, among `emails`, of the workspace's members (a pending invitation is none). */
async function memberAddresses(workspaceId: number, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await prisma().workspaceUser.findMany({
    where: { workspaceId, joinedAt: { not: null }, user: { confirmedAt: { not: null }, email: { in: emails, mode: "insensitive" } } },
    select: { user: { select: { email: true } } },
  });
  return new Set(rows.map((r) => r.user.email.toLowerCase()));
}

/** A new row's unsubscribe token: hashed for the lookup, encrypted because every alert mail carries it. */
function unsubscribeToken(): Pick<AlertSubscription, "unsubscribeTokenHash" | "unsubscribeTokenEncrypted"> {
  const { token, hash } = newLinkToken();
  return { unsubscribeTokenHash: hash, unsubscribeTokenEncrypted: encrypt(token) };
}

/** A row for each address of a channel being saved (existing rows keep their state). */
export async function ensureSubscriptions(tx: Tx, workspaceId: number, emails: string[]): Promise<void> {
  if (emails.length === 0) return;
  await tx.alertSubscription.createMany({
    data: emails.map((email) => ({ workspaceId, email, ...unsubscribeToken() })),
    skipDuplicates: true,
  });
}

/** The state of each of `emails` (in that order) in the workspace. */
export async function recipientStates(workspaceId: number, emails: string[]): Promise<RecipientState[]> {
  const [members, rows] = await Promise.all([
    memberAddresses(workspaceId, emails),
    prisma().alertSubscription.findMany({ where: { workspaceId, email: { in: emails } } }),
  ]);
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  return emails.map((email) => {
    const row = byEmail.get(email);
    const status: RecipientStatus =
      row?.status === "unsubscribed" ? "unsubscribed" : members.has(email) ? "member" : row?.status === "confirmed" ? "confirmed" : "pending";
    return { email, status, confirmationSentAt: status === "pending" ? (row?.confirmationSentAt ?? null) : null };
  });
}

/** The addresses to mail now, each with its unsubscribe link, and how many are not (yet) allowed. */
export async function mailableRecipients(workspaceId: number, emails: string[]): Promise<{ to: { email: string; unsubscribe: string }[]; unconfirmed: number }> {
  const states = await recipientStates(workspaceId, emails);
  const allowed = states.filter((s) => s.status === "member" || s.status === "confirmed").map((s) => s.email);
  // A member named before this feature (or by a config apply) may have no row yet: one is made now.
  await ensureSubscriptions(prisma(), workspaceId, allowed);
  const rows = await prisma().alertSubscription.findMany({ where: { workspaceId, email: { in: allowed } } });
  const to = rows
    .filter((r) => r.unsubscribeTokenEncrypted)
    .map((r) => ({ email: r.email, unsubscribe: linkTo("/alert-subscription/unsubscribe", decrypt(r.unsubscribeTokenEncrypted!)) }));
  return { to, unconfirmed: states.filter((s) => s.status === "pending").length };
}

function confirmationMail(to: string, workspaceName: string, url: string): MailMessage {
  return {
    to,
    subject: "Confirm Datasync alert mails",
    link: url,
    text: [
      `Someone in the Datasync workspace ${quoted(workspaceName)} added this address to an alert channel.`,
      "It gets no alert mails unless you confirm that you want them:",
      "",
      url,
      "",
      `The link works once, for ${CONFIRM_TTL_HOURS} hours. If you do not want these mails, ignore this one: nothing more is sent to you.`,
    ].join("\n"),
  };
}

/**
 * Mails a confirmation link to each pending address of `emails` that is not a member and was not
 * mailed within CONFIRM_RESEND_HOURS (or, with `onlyUnsent`, never), while the caps allow:
 * ALERT_MAX_CONFIRMATIONS_PER_HOUR for the workspace and CONFIRMATIONS_PER_ADDRESS_PER_DAY for the
 * address across workspaces. An address a cap held back stays pending, unmailed. Mails go out in the
 * background; the counts are taken before, so concurrent saves cannot pass the caps together.
 */
export async function requestConfirmations(workspaceId: number, emails: string[], options: { linkBase?: string; onlyUnsent?: boolean } = {}): Promise<void> {
  const members = await memberAddresses(workspaceId, emails);
  const candidates = emails.filter((e) => !members.has(e));
  if (candidates.length === 0) return;
  const workspace = await prisma().workspace.findUnique({ where: { id: workspaceId }, select: { name: true } });
  const cutoff = new Date(Date.now() - CONFIRM_RESEND_HOURS * 3_600_000);
  const rows = await prisma().alertSubscription.findMany({
    where: {
      workspaceId,
      email: { in: candidates },
      status: "pending",
      OR: options.onlyUnsent ? [{ confirmationSentAt: null }] : [{ confirmationSentAt: null }, { confirmationSentAt: { lt: cutoff } }],
    },
    orderBy: { id: "asc" },
  });
  for (const row of rows) {
    // Claimed first (one atomic update), so two saves at once mail an address once.
    const now = new Date();
    const { count } = await prisma().alertSubscription.updateMany({
      where: { id: row.id, status: "pending", confirmationSentAt: row.confirmationSentAt },
      data: { confirmationSentAt: now },
    });
    if (count !== 1) continue;
    const release = () => prisma().alertSubscription.updateMany({ where: { id: row.id, confirmationSentAt: now }, data: { confirmationSentAt: row.confirmationSentAt } });
    if ((await reserveInWindow(`alert-confirm-ws:${workspaceId}`, env.ALERT_MAX_CONFIRMATIONS_PER_HOUR, 3600)) !== null) {
      await release();
      logger.info({ workspaceId }, "alert confirmations held back: the workspace reached ALERT_MAX_CONFIRMATIONS_PER_HOUR");
      return;
    }
    if ((await reserveInWindow(`alert-confirm-to:${row.email}`, CONFIRMATIONS_PER_ADDRESS_PER_DAY, 86_400)) !== null) {
      await release();
      continue;
    }
    const { token, hash } = newLinkToken();
    await prisma().alertSubscription.update({
      where: { id: row.id },
      data: { confirmTokenHash: hash, confirmExpiresAt: new Date(now.getTime() + CONFIRM_TTL_HOURS * 3_600_000) },
    });
    sendInBackground(confirmationMail(row.email, workspace?.name ?? "", linkTo("/alert-subscription/confirm", token, options.linkBase)));
  }
}

const invalidLink = (what: string) =>
  new ValidationFailed(`This ${what} link is not valid: it was used already, replaced by a newer one, or mistyped.`, {
    errors: [{ path: "token", message: "is not valid (used, replaced or mistyped)" }],
  });

/** Confirms the address of a confirmation link: from now on it gets the workspace's alerts. Works once. */
export async function confirmAlertSubscription(token: string, client: { ip?: string | null }): Promise<{ email: string }> {
  await throttleAccountRequest({ ip: client.ip });
  const hash = hashLinkToken(token);
  const row = await prisma().alertSubscription.findUnique({ where: { confirmTokenHash: hash } });
  if (!row || row.status !== "pending") throw invalidLink("confirmation");
  if (!row.confirmExpiresAt || row.confirmExpiresAt.getTime() <= Date.now()) {
    await prisma().alertSubscription.updateMany({ where: { id: row.id, confirmTokenHash: hash }, data: { confirmTokenHash: null, confirmExpiresAt: null } });
    throw new ValidationFailed("This confirmation link has expired. Ask the workspace to add the address again.", {
      errors: [{ path: "token", message: "has expired" }],
    });
  }
  // The token is consumed by the same atomic update that confirms: two clicks at once confirm once.
  const { count } = await prisma().alertSubscription.updateMany({
    where: { id: row.id, confirmTokenHash: hash, status: "pending" },
    data: { status: "confirmed", confirmedAt: new Date(), confirmTokenHash: null, confirmExpiresAt: null },
  });
  if (count !== 1) throw invalidLink("confirmation");
  return { email: row.email };
}

/** Unsubscribes the address of an unsubscribe link from the workspace's alert mails, for good. Works once. */
export async function unsubscribeAlertSubscription(token: string, client: { ip?: string | null }): Promise<{ email: string }> {
  await throttleAccountRequest({ ip: client.ip });
  const hash = hashLinkToken(token);
  const row = await prisma().alertSubscription.findUnique({ where: { unsubscribeTokenHash: hash } });
  const { count } = row
    ? await prisma().alertSubscription.updateMany({
        where: { id: row.id, unsubscribeTokenHash: hash },
        data: { status: "unsubscribed", unsubscribeTokenHash: null, unsubscribeTokenEncrypted: null, confirmTokenHash: null, confirmExpiresAt: null },
      })
    : { count: 0 };
  if (!row || count !== 1) throw invalidLink("unsubscribe");
  return { email: row.email };
}
