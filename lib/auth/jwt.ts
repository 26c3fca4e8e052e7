// Bearer JWTs (HS256, jose). Two kinds share the format: session tokens from login (short-lived,
// revocable by logout through revoked_tokens) and API tokens (bound to one workspace, revocable
// through api_tokens). Both carry sub (user id), iat, exp and jti.
import "server-only";
import { randomUUID, webcrypto } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { env } from "@/lib/settings/env";
import { secrets } from "@/lib/settings/secrets";

export type TokenKind = "session" | "api_token";

export interface TokenClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp?: number;
  /** api_token only: the workspace the token is bound to. */
  wid?: number;
  kind: TokenKind;
}

let imported: { secret: string; key: Promise<CryptoKey> } | undefined;

/**
 * The HMAC key, imported once per secret: jose re-imports raw bytes on every sign/verify, which
 * costs about a third of a verification, and every API request verifies a token.
 */
function key(): Promise<CryptoKey> {
  const secret = secrets().jwtSecret;
  if (imported?.secret !== secret) {
    const raw = new TextEncoder().encode(secret);
    imported = { secret, key: webcrypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]) };
  }
  return imported.key;
}

/** Session lifetime in seconds: JWT_EXPIRES_IN (default 3600). */
export const sessionTtlSeconds = (): number => env.JWT_EXPIRES_IN;

export async function signToken(input: {
  userId: number;
  kind: TokenKind;
  workspaceId?: number;
  expiresAt?: Date | null;
  jti?: string;
  /** Sessions only: the user's last password change; iat is never before it (see auth-context.ts). */
  notBefore?: Date | null;
}): Promise<{ token: string; jti: string; expiresAt: Date | null }> {
  const jti = input.jti ?? randomUUID();
  const expiresAt =
    input.kind === "session" ? new Date(Date.now() + sessionTtlSeconds() * 1000) : (input.expiresAt ?? null);
  let builder = new SignJWT({ kind: input.kind, ...(input.workspaceId ? { wid: input.workspaceId } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(input.userId))
    .setIssuedAt(Math.max(Math.floor(Date.now() / 1000), Math.ceil((input.notBefore?.getTime() ?? 0) / 1000)))
    .setJti(jti);
  if (expiresAt) builder = builder.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
  return { token: await builder.sign(await key()), jti, expiresAt };
}

/**
 * Tokens whose signature was verified, by their exact text, per key. A signature check is a pure
 * function of the token and the key, and HMAC through WebCrypto costs a few hundred microseconds a
 * request under load, so a client sending the same token again skips it. Expiry is still checked
 * on every use, and revocation is not this module's business: the caller looks that up in the
 * database on every request. Bounded: the oldest entry goes first.
 */
const verified = new Map<string, Readonly<TokenClaims>>();
let verifiedWith: string | undefined;
const VERIFIED_MAX = 1000;

/** jose's rule: a token is expired once `exp` is not after now (whole seconds). */
const expired = (claims: TokenClaims) => claims.exp !== undefined && claims.exp <= Math.floor(Date.now() / 1000);

/** Verifies signature and expiry; returns null for anything that is not a valid token of ours. */
export async function verifyToken(token: string): Promise<Readonly<TokenClaims> | null> {
  const secret = secrets().jwtSecret;
  if (verifiedWith !== secret) {
    verified.clear();
    verifiedWith = secret;
  }
  const known = verified.get(token);
  if (known) {
    if (!expired(known)) return known;
    verified.delete(token);
    return null;
  }
  let claims: TokenClaims;
  try {
    const { payload } = await jwtVerify(token, await key(), { algorithms: ["HS256"] });
    if (typeof payload.sub !== "string" || typeof payload.jti !== "string") return null;
    if (payload.kind !== "session" && payload.kind !== "api_token") return null;
    // A session always expires (we sign every one with exp); one without is not ours to honour.
    // API tokens may be unlimited: their expiry and revocation live in api_tokens.
    if (payload.kind === "session" && typeof payload.exp !== "number") return null;
    claims = payload as TokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(token, Object.freeze(claims));
  return claims;
}
