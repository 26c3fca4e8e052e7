// Login and logout. Login answers the same 401 for an unknown email and a wrong password, and
// spends the same time on both.
import { signToken } from "@/lib/auth/jwt";
import { DUMMY_HASH, verifyPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { Unauthorized } from "@/lib/errors";
import type { LoginInput } from "@/lib/validation/auth";
import type { AuthContext } from "./auth-context";

export async function login(input: LoginInput): Promise<{ token: string; expiresAt: Date | null; userId: number }> {
  const user = await prisma().user.findUnique({ where: { email: input.email } });
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new Unauthorized("The email or password is incorrect.");
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
