// Invitations: how a person comes to belong to a workspace someone else runs. An account belongs to
// whoever controls its address, so an invitation never gives anyone a password or access:
//  - it adds a pending membership (joined_at null), which gives no access at all (auth-context.ts
//    and workspaceAccess only see accepted memberships), and mails a single-use link to the address;
//  - an address without an account gets an account without a password (NO_PASSWORD); so does an
//    unverified self sign-up, whose password whoever signed it up chose: it is wiped, with its
//    verification links, so a stranger who signed up the address first can never sign in to it;
//  - the link (POST /api/v1/accept_invitation) accepts; for an account without a password it also
//    sets the one its owner chooses there, which ends every session and API token the account had.
// Inviting answers alike whether or not the address has an account (members.ts).
import "server-only";
import { hashPassword, hasPassword, NO_PASSWORD } from "@/lib/auth/password";
import { assertUncommonPassword } from "@/lib/auth/password-policy";
import { prisma } from "@/lib/db/client";
import { ValidationFailed } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { sendInBackground } from "@/lib/mail";
import type { AcceptInvitationInput } from "@/lib/validation/accounts";
import { invitationMail } from "./account-mails";
import { endedSentence, replaceCredentials } from "./account-recovery";
import { consume, issueToken, usableToken } from "./accounts";
import { throttleAccountRequest } from "./account-throttle";

type Tx = Prisma.TransactionClient;

export const INVITATION_DAYS = 7;

/** The invited account: found, or made without a password. `setPassword`: its link must ask for one. */
export async function invitee(tx: Tx, email: string, name: string): Promise<{ id: number; setPassword: boolean }> {
  const found = await tx.user.findUnique({
    where: { email },
    select: { id: true, passwordHash: true, confirmedAt: true },
  });
  if (!found) {
    const user = await tx.user.create({
      data: { email, name, passwordHash: NO_PASSWORD, confirmedAt: null },
      select: { id: true },
    });
    return { id: user.id, setPassword: true };
  }
  if (found.confirmedAt === null) {
    // Nobody has proven this address yet: whatever password it has was chosen by whoever signed it up.
    await tx.user.update({
      where: { id: found.id },
      data: { passwordHash: NO_PASSWORD, name, passwordChangedAt: new Date() },
    });
    await tx.accountToken.deleteMany({ where: { userId: found.id, purpose: "confirm_email" } });
    return { id: found.id, setPassword: true };
  }
  return { id: found.id, setPassword: !hasPassword(found.passwordHash) };
}

/** Issues the membership's link and mails it (in the background: the answer must not depend on it). */
export async function sendInvitation(
  tx: Tx,
  invite: { userId: number; membershipId: number; email: string; setPassword: boolean; workspace: string; inviter: string },
  consoleBase: string,
): Promise<() => void> {
  const token = await issueToken(tx, invite.userId, "accept_invitation", INVITATION_DAYS * 86_400_000, invite.membershipId);
  const mail = invitationMail(consoleBase, invite.email, token, {
    workspace: invite.workspace,
    inviter: invite.inviter,
    setPassword: invite.setPassword,
    days: INVITATION_DAYS,
  });
  // Sent once the transaction has committed, so a link never points at a membership that was rolled back.
  return () => sendInBackground(mail);
}

/**
 * Accepts the invitation of the link: the membership gives access from now on. An account without
 * a password gets the one sent (required then, refused otherwise: a link is no password reset), and
 * its address counts as verified. Answers the sentence to show.
 */
export async function acceptInvitation(input: AcceptInvitationInput, client: { ip?: string | null }): Promise<string> {
  await throttleAccountRequest({ ip: client.ip });
  const field = "invitation_token";
  const row = await usableToken(input.invitation_token, "accept_invitation", field, "invitation");
  const setPassword = !hasPassword(row.user.passwordHash);
  if (setPassword && input.password === undefined) {
    throw ValidationFailed.field("password", "is required: choose the password of your new account (and send it again as password_confirmation)");
  }
  if (!setPassword && input.password !== undefined) {
    throw ValidationFailed.field(
      "password",
      "must not be sent: this account has a password already; accept without one and sign in with it (Forgot password changes it)",
    );
  }
  let passwordHash: string | undefined;
  if (input.password !== undefined) {
    assertUncommonPassword(input.password, "password");
    passwordHash = await hashPassword(input.password);
  }
  const now = new Date();
  const { workspace, revoked } = await prisma().$transaction(async (tx) => {
    await consume(tx, row.id, field, "invitation");
    const membership = await tx.workspaceUser.update({
      where: { id: row.membershipId! },
      data: { joinedAt: now },
      select: { workspace: { select: { name: true } } },
    });
    const revoked = passwordHash ? await replaceCredentials(tx, row.userId, passwordHash, now, row.user.confirmedAt ?? now) : null;
    if (!passwordHash && !row.user.confirmedAt) await tx.user.update({ where: { id: row.userId }, data: { confirmedAt: now } });
    return { workspace: membership.workspace.name, revoked };
  });
  const joined = `You joined the workspace ${workspace}.`;
  return revoked === null
    ? `${joined} Sign in with your password.`
    : `${joined} Your password is set. ${endedSentence(revoked)} Sign in with it.`;
}
