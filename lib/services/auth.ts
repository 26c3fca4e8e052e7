// Login, logout and the signed-in user. Login answers the same 401 for an unknown email and a wrong
// password, spends the same time on both, and is throttled per account and per address
// (login-throttle.ts) before the password is even checked.
import { signToken } from "@/lib/auth/jwt";
import { DUMMY_HASH, verifyPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { NotFound, Unauthorized } from "@/lib/errors";
import type { LoginInput } from "@/lib/validation/auth";
import type { AuthContext } from "./auth-context";
import { assertLoginAllowed, recordLoginFailure, recordLoginSuccess } from "./login-throttle";

export async function login(
  input: LoginInput,
  client: { ip?: string | null } = {},
): Promise<{ token: string; expiresAt: Date | null; userId: number }> {
  const who = { email: input.email, ip: client.ip };
  await assertLoginAllowed(who);
  const user = await prisma().user.findUnique({ where: { email: input.email } });
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) {
    await recordLoginFailure(who);
    throw new Unauthorized("The email or password is incorrect.");
  }
  await recordLoginSuccess(who);
  await prisma().user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  const { token, expiresAt } = await signToken({ userId: user.id, kind: "session" });
  return { token, expiresAt, userId: user.id };
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
        where: auth.tokenKind === "api_token" ? { workspaceId: auth.workspaceId } : {},
        include: { workspace: true, role: true },
        orderBy: { workspaceId: "asc" },
      },
    },
  });
  if (!user) throw new NotFound("The signed-in user no longer exists.");
  return { user, auth };
}
export type CurrentUser = Awaited<ReturnType<typeof currentUser>>;
