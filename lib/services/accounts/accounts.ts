// Self-service accounts: sign-up (off unless SIGNUP_ENABLED), email verification and password reset.
// Rules that hold throughout:
//  - No enumeration: sign-up, forgot-password and resend-verification answer the same for an address
//    with an account and one without; mails go out in the background, so the answer's timing does
//    not depend on them either.
//  - No takeover: sign-up never changes an existing account (an invited person's, an unverified
//    one's): its owner gets a mail saying so, with the way to set a password through their inbox.
//  - Tokens in links are 32 random bytes; only their SHA-256 is stored (a lookup by hash, so no
//    comparison leaks timing), each works once, expires, and a reset token dies with any password
//    change made after it was issued.
// All requests pass the account throttle (account-throttle.ts) first.
import "server-only";
import { hashPassword } from "@/lib/auth/password";
import { assertStrongPassword } from "@/lib/auth/password-policy";
import { sendsMail } from "@/lib/settings/console-url";
import { env } from "@/lib/settings/env";
import { prisma } from "@/lib/db/client";
import { Forbidden, ValidationFailed } from "@/lib/errors";
import { Prisma, type AccountTokenPurpose } from "@/lib/generated/prisma/client";
import { sendInBackground } from "@/lib/mail";
import { logger } from "@/lib/logger";
import type {
  ForgotPasswordInput,
  ResendVerificationInput,
  ResetPasswordInput,
  SignupInput,
  VerifyUserQuery,
} from "@/lib/validation/accounts";
import { alreadyRegisteredMail, resetPasswordMail, verificationMail } from "./mails";
import { endedSentence, replaceCredentials } from "./recovery";
import { throttleAccountRequest } from "./account-throttle";
import { audit } from "../insights/audit";
import { hashLinkToken as hashToken, newLinkToken } from "./link-tokens";
import { slugFor } from "./workspaces";

type Tx = Prisma.TransactionClient;

const RESET_MINUTES = 60;
const VERIFY_HOURS = 24;

export interface AccountClient {
  ip?: string | null;
  /** Where links in mails point (lib/settings/console-url.ts). */
  consoleBase: string;
}

/** SIGNUP_ENABLED=1 (or true): anyone may create an account and a workspace of their own. */
export const signupEnabled = (): boolean => env.SIGNUP_ENABLED;

export function assertSignupEnabled(): void {
  if (!signupEnabled()) {
    throw new Forbidden(
      "Sign-up is switched off on this server: ask an administrator to add you to a workspace. (Operators: set SIGNUP_ENABLED=1 to allow self sign-up.)",
    );
  }
}

/**
 * A new single-use token for the user; older ones of the same purpose (for an invitation: of the
 * same membership) stop working.
 */
export async function issueToken(
  tx: Tx,
  userId: number,
  purpose: AccountTokenPurpose,
  ttlMs: number,
  membershipId?: number,
): Promise<string> {
  const { token, hash } = newLinkToken();
  await tx.accountToken.deleteMany({ where: { userId, purpose, membershipId } });
  await tx.accountToken.create({
    data: { userId, purpose, membershipId, tokenHash: hash, expiresAt: new Date(Date.now() + ttlMs) },
  });
  return token;
}

/** Runs `work` after the answer is decided, so neither its time nor its failure shows in the answer. */
function inBackground(what: string, work: () => Promise<void>): void {
  void work().catch((err: unknown) =>
    logger.error({ err: err instanceof Error ? err.message : String(err) }, `${what} failed`),
  );
}

const isUniqueViolation = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";

export interface SignupResult {
  name: string;
  email: string;
  createdAt: Date;
}

/**
 * Creates an unverified user and a workspace of its own (the user its Admin), and mails a
 * verification link. An address that has an account already gets a mail saying so instead, and
 * the caller the same answer. The password is hashed either way, so both take about as long.
 */
export async function signup(input: SignupInput, client: AccountClient): Promise<SignupResult> {
  await throttleAccountRequest({ ip: client.ip, email: input.email });
  assertStrongPassword(input.password, "password", [input.email, input.name]);
  const passwordHash = await hashPassword(input.password);
  const createdAt = new Date();
  let token: string | null = null;
  try {
    token = await prisma().$transaction(async (tx) => {
      const existing = await tx.user.findUnique({ where: { email: input.email }, select: { id: true } });
      if (existing) return null;
      const user = await tx.user.create({
        data: { email: input.email, name: input.name, passwordHash, confirmedAt: null, createdAt },
      });
      const admin = await tx.role.findFirstOrThrow({ where: { workspaceId: null, roleType: "system", name: "Admin" } });
      // The reference names the workspace "default" under an organization named after the company;
      // with one implicit organization here (lib/settings/organization.ts), the company names the workspace.
      const name = input.company_name || "Default";
      const workspace = await tx.workspace.create({ data: { name, slug: slugFor(name) } });
      await tx.workspaceUser.create({
        data: { workspaceId: workspace.id, userId: user.id, roleId: admin.id, joinedAt: createdAt },
      });
      await audit({ workspaceId: workspace.id, user }, "create", "workspace", workspace.id, { name, via: "signup" }, tx);
      return issueToken(tx, user.id, "confirm_email", VERIFY_HOURS * 3_600_000);
    });
  } catch (err) {
    // Two sign-ups of one address at once: the second finds the first's account.
    if (!isUniqueViolation(err)) throw err;
  }
  sendInBackground(
    token
      ? verificationMail(client.consoleBase, input.email, token, VERIFY_HOURS)
      : alreadyRegisteredMail(client.consoleBase, input.email),
  );
  return { name: input.name, email: input.email, createdAt };
}

/** What forgot-password answers when mail goes out: whether an account uses the address stays unsaid. */
export const RESET_MAILED = "If an account uses this address, a link to reset its password is on its way.";

/**
 * What it answers on a server that sends no mail: no link reaches anyone, so the person is sent to
 * an administrator and told what the administrator can do. Like the mailed answer it is one
 * sentence for every address (it never says whether the reset link was logged).
 */
export const RESET_NOT_MAILED =
  "This server sends no mail (SMTP_URL is not set), so no link is on its way: ask an administrator of this server to reset your password. " +
  "Administrators: run `npm run admin -- reset-password EMAIL` where the server runs (it prints a new password to hand over), " +
  "or pass on the reset link the server's log shows for the address.";

/** Sign-up's answer when mail goes out (the same for an address that already has an account: it gets a note instead). */
export const SIGNUP_MAILED = "Check your inbox: a link to verify your email address is on its way.";
/** Resend-verification's answer when mail goes out: whether the address is waiting stays unsaid. */
export const VERIFY_RESENT = "If an account with this address is waiting for verification, a new link is on its way.";

/**
 * Sign-up's and resend-verification's answer on a server that sends no mail (like RESET_NOT_MAILED,
 * one sentence for every address). `npm run admin -- reset-password` also marks the address verified.
 */
export const VERIFY_NOT_MAILED =
  "This server sends no mail (SMTP_URL is not set), so no verification link is on its way: ask an administrator of this server to verify your address. " +
  "Administrators: pass on the verification link the server's log shows for the address, " +
  "or run `npm run admin -- reset-password EMAIL` where the server runs (it marks the address verified and prints a new password to hand over).";

/** What sign-up and resend-verification say: true to whether mail goes out, silent on whether the address has an account. */
export const signupAnswer = (): string => (sendsMail() ? SIGNUP_MAILED : VERIFY_NOT_MAILED);
export const resendVerificationAnswer = (): string => (sendsMail() ? VERIFY_RESENT : VERIFY_NOT_MAILED);

/**
 * Mails a reset link when an account uses the address (without SMTP the link is logged for the
 * operator); answers the sentence to show, the same for any address.
 */
export async function forgotPassword(input: ForgotPasswordInput, client: AccountClient): Promise<string> {
  const answer = sendsMail() ? RESET_MAILED : RESET_NOT_MAILED;
  await throttleAccountRequest({ ip: client.ip, email: input.email });
  const user = await prisma().user.findUnique({ where: { email: input.email }, select: { id: true } });
  if (!user) return answer;
  inBackground("issuing a password reset", async () => {
    const token = await issueToken(prisma(), user.id, "reset_password", RESET_MINUTES * 60_000);
    sendInBackground(resetPasswordMail(client.consoleBase, input.email, token, RESET_MINUTES));
  });
  return answer;
}

/** Mails a new verification link when the address belongs to an unverified account; same answer either way. */
export async function resendVerification(input: ResendVerificationInput, client: AccountClient): Promise<void> {
  await throttleAccountRequest({ ip: client.ip, email: input.email });
  const user = await prisma().user.findUnique({
    where: { email: input.email },
    select: { id: true, confirmedAt: true },
  });
  if (!user || user.confirmedAt) return;
  inBackground("issuing an email verification", async () => {
    const token = await issueToken(prisma(), user.id, "confirm_email", VERIFY_HOURS * 3_600_000);
    sendInBackground(verificationMail(client.consoleBase, input.email, token, VERIFY_HOURS));
  });
}

const invalidLink = (field: string, what: string) =>
  new ValidationFailed(
    `This ${what} link is not valid: it was used already, replaced by a newer one, or mistyped. Ask for a new one.`,
    { errors: [{ path: field, message: "is not valid (used, replaced or mistyped)" }] },
  );
const expiredLink = (field: string, what: string) =>
  new ValidationFailed(`This ${what} link has expired. Ask for a new one.`, {
    errors: [{ path: field, message: "has expired" }],
  });

/** The live token row for `token`, or a 422 saying why not (an expired one is deleted). */
export async function usableToken(token: string, purpose: AccountTokenPurpose, field: string, what: string) {
  const row = await prisma().accountToken.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { select: { id: true, email: true, passwordHash: true, passwordChangedAt: true, confirmedAt: true } } },
  });
  if (!row || row.purpose !== purpose) throw invalidLink(field, what);
  if (row.expiresAt.getTime() <= Date.now()) {
    await prisma().accountToken.deleteMany({ where: { id: row.id } });
    throw expiredLink(field, what);
  }
  // A password changed after the link was issued (by its owner, or another reset) voids the link.
  if (purpose === "reset_password" && row.user.passwordChangedAt && row.user.passwordChangedAt > row.createdAt) {
    throw invalidLink(field, what);
  }
  return row;
}

/** Consumes the token (exactly once, even under concurrent use) inside `tx`, or throws. */
export async function consume(tx: Tx, id: number, field: string, what: string): Promise<void> {
  const { count } = await tx.accountToken.deleteMany({ where: { id } });
  if (count !== 1) throw invalidLink(field, what);
}

/**
 * Sets a new password with a reset token. Every session issued before ends, every API token of the
 * user is revoked (account-recovery.ts), every other reset link of the user dies, and the address
 * counts as verified: the link proved it. Answers the sentence that says so.
 */
export async function resetPassword(input: ResetPasswordInput, client: { ip?: string | null }): Promise<string> {
  await throttleAccountRequest({ ip: client.ip });
  const field = "reset_password_token";
  const row = await usableToken(input.reset_password_token, "reset_password", field, "password reset");
  assertStrongPassword(input.password, "password");
  const passwordHash = await hashPassword(input.password);
  const changedAt = new Date();
  const revoked = await prisma().$transaction(async (tx) => {
    await consume(tx, row.id, field, "password reset");
    const count = await replaceCredentials(tx, row.userId, passwordHash, changedAt, row.user.confirmedAt ?? changedAt);
    await tx.accountToken.deleteMany({ where: { userId: row.userId, purpose: "reset_password" } });
    return count;
  });
  return `Your password is changed. ${endedSentence(revoked)} Sign in with the new one.`;
}

/** Marks the user's address verified with a verification token; from then on it can sign in. */
export async function verifyUser(query: VerifyUserQuery, client: { ip?: string | null }): Promise<void> {
  await throttleAccountRequest({ ip: client.ip });
  const field = "confirmation_token";
  const row = await usableToken(query.confirmation_token, "confirm_email", field, "verification");
  await prisma().$transaction(async (tx) => {
    await consume(tx, row.id, field, "verification");
    await tx.user.update({ where: { id: row.userId }, data: { confirmedAt: row.user.confirmedAt ?? new Date() } });
    await tx.accountToken.deleteMany({ where: { userId: row.userId, purpose: "confirm_email" } });
  });
}
