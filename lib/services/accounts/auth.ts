// Login, logout and the signed-in user. Login answers the same 401 for an unknown email and a wrong
// password, spends the same time on both, and passes the throttle (login-throttle.ts: per account
// and address, and per address) before the password is even checked.
import "server-only";
import { signToken } from "@/lib/auth/jwt";
import { DUMMY_HASH, hashPassword, verifyPassword } from "@/lib/auth/password";
import { assertStrongPassword } from "@/lib/auth/password-policy";
import { WRONG_CREDENTIALS } from "@/lib/auth/sign-in-error";
import { prisma } from "@/lib/db/client";
import { Forbidden, NotFound, Unauthorized, ValidationFailed } from "@/lib/errors";
import type { ChangePasswordInput, LoginInput } from "@/lib/validation/auth";
import { endedSentence, replaceCredentials } from "./recovery";
import type { AuthContext } from "./auth-context";
import { beginLoginAttempt } from "./login-throttle";

export async function login(
  input: LoginInput,
  client: { ip?: string | null } = {},
): Promise<{ token: string; expiresAt: Date | null; userId: number }> {
  const attempt = await beginLoginAttempt({ email: input.email, ip: client.ip });
  const user = await prisma().user.findUnique({ where: { email: input.email } });
  // An invited person who has not chosen a password yet has none (NO_PASSWORD): the dummy hash costs
  // the same time as a real one, so sign-in does not tell such accounts apart.
  const ok = await verifyPassword(input.password, user?.passwordHash || DUMMY_HASH);
  if (!user || !ok) throw new Unauthorized(WRONG_CREDENTIALS);
  await attempt.succeeded();
  // A self sign-up that has not verified its address yet (lib/services/accounts/accounts.ts). Told only to
  // someone who knows the password, as the reference does (401).
  if (!user.confirmedAt) {
    throw new Unauthorized(
      "This account's email address is not verified yet: open the link in the verification mail, or ask for a new one (POST /api/v1/resend_verification).",
    );
  }
  await prisma().user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  const { token, expiresAt } = await signToken({
    userId: user.id,
    kind: "session",
    notBefore: user.passwordChangedAt,
  });
  return { token, expiresAt, userId: user.id };
}

/**
 * Changes the signed-in user's password. The current password is checked under the same throttle
 * as sign-in (a stolen session cannot guess it faster); every session issued before the change
 * stops working and every API token of the user is revoked (account-recovery.ts: a password is
 * changed because someone else may know it, and a token they minted must not outlive that); the
 * caller gets a fresh session token and the sentence saying so. API tokens cannot change it.
 */
export async function changePassword(
  auth: AuthContext,
  input: ChangePasswordInput,
  client: { ip?: string | null } = {},
): Promise<{ token: string; expiresAt: Date | null; message: string }> {
  if (auth.tokenKind !== "session") {
    throw new Forbidden("Change the password while signed in (POST /api/v1/login), not with an API token.");
  }
  assertStrongPassword(input.password, "password");
  if (input.password === input.current_password) {
    throw ValidationFailed.field("password", "must differ from the current password");
  }
  const attempt = await beginLoginAttempt({ email: auth.user.email, ip: client.ip });
  const user = await prisma().user.findUnique({ where: { id: auth.user.id } });
  if (!user) throw new NotFound("The signed-in user no longer exists.");
  if (!(await verifyPassword(input.current_password, user.passwordHash))) {
    throw ValidationFailed.field("current_password", "is not your current password");
  }
  await attempt.succeeded();
  const passwordHash = await hashPassword(input.password);
  const changedAt = new Date();
  const revoked = await prisma().$transaction((tx) => replaceCredentials(tx, user.id, passwordHash, changedAt));
  const { token, expiresAt } = await signToken({ userId: user.id, kind: "session", notBefore: changedAt });
  return { token, expiresAt, message: `Your password is changed. ${endedSentence(revoked)}` };
}

/** Revokes the session token used for this request until it would have expired anyway. */
export async function logout(auth: AuthContext): Promise<void> {
  if (auth.tokenKind !== "session") return;
  const expiresAt = new Date((auth.exp ?? Math.floor(Date.now() / 1000) + 86_400) * 1000);
  await prisma().revokedToken.upsert({
    where: { jti: auth.jti },
    create: { jti: auth.jti, expiresAt },
    update: {},
  });
  // Housekeeping: expired revocations are no longer needed.
  await prisma().revokedToken.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

/** The caller, the role it acts with in the current workspace, and the workspaces it may use. */
export async function currentUser(auth: AuthContext) {
  const user = await prisma().user.findUnique({
    where: { id: auth.user.id },
    include: {
      memberships: {
        // An API token is confined to its workspace, so it sees only that one.
        // Pending invitations give no access, so they are not the user's workspaces yet.
        where: { joinedAt: { not: null }, ...(auth.tokenKind === "api_token" ? { workspaceId: auth.workspaceId } : {}) },
        include: { workspace: true, role: true },
        orderBy: { workspaceId: "asc" },
      },
    },
  });
  if (!user) throw new NotFound("The signed-in user no longer exists.");
  return { user, auth };
}
export type CurrentUser = Awaited<ReturnType<typeof currentUser>>;
