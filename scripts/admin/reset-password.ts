// `npm run admin -- reset-password EMAIL`: gives an account a new generated password, for an
// operator locked out of the console (forgotten password, no mail set up). Whoever can run this
// already holds the database; it needs no other proof.
import { randomBytes } from "node:crypto";
import { hashPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { replaceCredentials } from "@/lib/services/accounts/recovery";

export class UnknownAccount extends Error {}

/**
 * Sets a new random password for the account of `email` and returns it. Sessions signed before
 * now stop working and every API token of the user is revoked (lib/services/accounts/recovery.ts:
 * the operator resets an account because its password may be known to someone else), the address
 * counts as verified (the operator vouches for it), and the account's failed-sign-in counters go,
 * so the new password works at once. Pending invitations stay pending: the person accepts them
 * through their links, or the operator hands them the logged links.
 */
export async function resetPasswordByEmail(
  email: string,
): Promise<{ email: string; password: string; revokedTokens: number }> {
  const address = email.trim().toLowerCase();
  const user = await prisma().user.findFirst({ where: { email: { equals: address, mode: "insensitive" } }, select: { id: true, email: true, confirmedAt: true } });
  if (!user) throw new UnknownAccount(`No account has the email address "${email.trim()}". Check the address (the console's Settings → Members lists them).`);
  // The same form as the generated first-admin password (lib/db/seed.ts): 16 URL-safe characters.
  const password = randomBytes(12).toString("base64url");
  const passwordHash = await hashPassword(password);
  const now = new Date();
  const revokedTokens = await prisma().$transaction(async (tx) => {
    const revoked = await replaceCredentials(tx, user.id, passwordHash, now, user.confirmedAt ?? now);
    await tx.accountToken.deleteMany({ where: { userId: user.id, purpose: "reset_password" } });
    await tx.loginThrottle.deleteMany({ where: { key: { startsWith: `pair:${user.email.toLowerCase()}|` } } });
    return revoked;
  });
  return { email: user.email, password, revokedTokens };
}
