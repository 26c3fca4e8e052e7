// Bearer JWTs (HS256, jose). Two kinds share the format: session tokens from login (short-lived,
// revocable by logout through revoked_tokens) and API tokens (bound to one workspace, revocable
// through api_tokens). Both carry sub (user id), iat, exp and jti.
import { randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { secrets } from "@/lib/config/secrets";

export type TokenKind = "session" | "api_token";

export interface TokenClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp?: number;
  /** api_token only: the workspace the token is bound to. */
  wid?: number;
  kind: TokenKind;
}

const key = () => new TextEncoder().encode(secrets().jwtSecret);

/** Session lifetime in seconds: JWT_EXPIRES_IN (default 3600). */
export const sessionTtlSeconds = (): number => Number(process.env.JWT_EXPIRES_IN ?? 3600);

export async function signToken(input: {
  userId: number;
  kind: TokenKind;
  workspaceId?: number;
  expiresAt?: Date | null;
  jti?: string;
}): Promise<{ token: string; jti: string; expiresAt: Date | null }> {
  const jti = input.jti ?? randomUUID();
  const expiresAt =
    input.kind === "session" ? new Date(Date.now() + sessionTtlSeconds() * 1000) : (input.expiresAt ?? null);
  let builder = new SignJWT({ kind: input.kind, ...(input.workspaceId ? { wid: input.workspaceId } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(input.userId))
    .setIssuedAt()
    .setJti(jti);
  if (expiresAt) builder = builder.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
  return { token: await builder.sign(key()), jti, expiresAt };
}

/** Verifies signature and expiry; returns null for anything that is not a valid token of ours. */
export async function verifyToken(token: string): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(), { algorithms: ["HS256"] });
    if (typeof payload.sub !== "string" || typeof payload.jti !== "string") return null;
    if (payload.kind !== "session" && payload.kind !== "api_token") return null;
    return payload as TokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
}
