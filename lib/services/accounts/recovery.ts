// What recovering an account ends. A password reset (mailed link or the operator's CLI), a password
// change and a password chosen through an invitation link all say "whoever held this account before
// may not have been its owner": every session issued before ends (password_changed_at, checked by
// auth-context.ts) and every API token of the user is revoked, in every workspace. Tokens minted by
// those tokens belong to the same user, so they go too.
import "server-only";
import type { Prisma } from "@/lib/generated/prisma/client";

/** Sets the new password hash, ends every session and revokes every API token; the number of tokens revoked. */
export async function replaceCredentials(
  tx: Prisma.TransactionClient,
  userId: number,
  passwordHash: string,
  at: Date,
  confirmedAt?: Date,
): Promise<number> {
  await tx.user.update({
    where: { id: userId },
    data: { passwordHash, passwordChangedAt: at, ...(confirmedAt ? { confirmedAt } : {}) },
  });
  const { count } = await tx.apiToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: at } });
  return count;
}

/** The sentence every recovery answers with, so the person knows what stopped working. */
export function endedSentence(tokens: number): string {
  const revoked =
    tokens === 0 ? "it had no API tokens" : tokens === 1 ? "its 1 API token was revoked" : `its ${tokens} API tokens were revoked`;
  return `Every earlier session of the account has ended, and ${revoked} (create new ones if you need them).`;
}
