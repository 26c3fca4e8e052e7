// Invitations: how a person comes to belong to a workspace someone else runs. An account belongs to
// whoever controls its address, so an invitation never gives anyone a password or access:
//  - it adds a pending membership (joined_at null), which gives no access at all (auth-context.ts
//    and workspaceAccess only see accepted memberships), and mails a single-use link to the address;
//  - an address without an account gets an account without a password (NO_PASSWORD); so does an
//    unverified self sign-up, whose password whoever signed it up chose: it is wiped, with its
//    verification links, so a stranger who signed up the address first can never sign in to it;
//  - the link (POST /api/v1/accept_invitation) accepts; an account without a password sets the one
//    its owner chooses there (it can have no session or API token to end: nobody could sign in to
//    it, and wiping a sign-up's password ended its sessions); an account with one must give it. Both the inbox and the password are needed, so a stranger's account
//    that the owner verified by mistake (a verification link for a sign-up they did not make) cannot
//    be joined to the owner's company: the owner cannot give that password, and resets it instead
//    (which ends the stranger's sessions and tokens) before accepting.
// Inviting answers alike whether or not the address has an account (members.ts).
import "server-only";
import { hashPassword, hasPassword, NO_PASSWORD, verifyPassword } from "@/lib/auth/password";
import { assertStrongPassword } from "@/lib/auth/password-policy";
import { prisma } from "@/lib/db/client";
import { ValidationFailed } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { sendInBackground } from "@/lib/mail";
import type { AcceptInvitationInput } from "@/lib/validation/accounts";
import { MIN_PASSWORD_LENGTH } from "@/lib/validation/members";
import { invitationMail } from "./mails";
import { consume, issueToken, usableToken } from "./accounts";
import { throttleAccountRequest } from "./account-throttle";
import { beginLoginAttempt } from "./login-throttle";

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
  invite: { userId: number; membershipId: number; email: string; setPassword: boolean; workspace: string; inviter: { name: string; email: string } },
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
 * a password gets the one sent, and its address counts as verified; an account with one must send
 * it (checked under the sign-in throttle, so a link is no way to guess it faster). Answers the
 * sentence to show.
 */
export async function acceptInvitation(input: AcceptInvitationInput, client: { ip?: string | null }): Promise<string> {
  await throttleAccountRequest({ ip: client.ip });
  const field = "invitation_token";
  const row = await usableToken(input.invitation_token, "accept_invitation", field, "invitation");
  const setPassword = !hasPassword(row.user.passwordHash);
  let passwordHash: string | undefined;
  if (setPassword) {
    if (input.password_confirmation === undefined) {
      throw ValidationFailed.field("password_confirmation", "is required: send the new account's password again");
    }
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw ValidationFailed.field("password", `must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    assertStrongPassword(input.password, "password", [row.user.email]);
    passwordHash = await hashPassword(input.password);
  } else {
    const attempt = await beginLoginAttempt({ email: row.user.email, ip: client.ip });
    if (!(await verifyPassword(input.password, row.user.passwordHash))) {
      throw ValidationFailed.field(
        "password",
        "is not this account's password: send the password you sign in with (if you never chose one, set it with Forgot password first, then open this link again)",
      );
    }
    await attempt.succeeded();
  }
  const now = new Date();
  const workspace = await prisma().$transaction(async (tx) => {
    await consume(tx, row.id, field, "invitation");
    const membership = await tx.workspaceUser.update({
      where: { id: row.membershipId! },
      data: { joinedAt: now },
      select: { workspace: { select: { name: true } } },
    });
    // The link proved the address. password_changed_at stays: no session can predate a first password.
    await tx.user.update({
      where: { id: row.userId },
      data: { confirmedAt: row.user.confirmedAt ?? now, ...(passwordHash ? { passwordHash } : {}) },
    });
    return membership.workspace.name;
  });
  return `You joined the workspace ${workspace}. ${passwordHash ? "Your password is set: sign in with it." : "Sign in with your password."}`;
}
