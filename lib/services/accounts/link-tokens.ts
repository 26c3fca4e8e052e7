// The secrets of mailed single-use links (account verification and reset, alert confirmation and
// unsubscribe): 32 random bytes, base64url in the link; only their SHA-256 is stored and looked up,
// so a database read does not yield a usable link and no comparison leaks timing.
import "server-only";
import { createHash, randomBytes } from "node:crypto";

export const hashLinkToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** A new link token and the hash to store. */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashLinkToken(token) };
}
