// The SQL API's credentials: a programmatic access token sent as a bearer token, or a JWT signed with
// the user's RSA private key (Snowflake's key-pair authentication: iss `<ACCOUNT>.<USER>.SHA256:<public
// key fingerprint>`, sub `<ACCOUNT>.<USER>`, at most an hour long, RS256).
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { setBounded } from "../shared/bounded-cache";
import { ConnectorError } from "../shared/errors";
import type { SnowflakeConfig } from "./config";

/** Tokens are signed for 59 minutes and renewed 5 minutes before they end. */
const JWT_LIFETIME_SECONDS = 59 * 60;
const RENEW_BEFORE_MS = 5 * 60 * 1000;

/** Bounded (shared/bounded-cache): one process serves every workspace, each may try many keys. */
const jwtCache = new Map<string, { token: string; expiresAt: number }>();

function privateKeyOf(pem: string, passphrase?: string): KeyObject {
  try {
    return createPrivateKey({ key: pem.replace(/\\n/g, "\n").trim(), format: "pem", ...(passphrase ? { passphrase } : {}) });
  } catch {
    throw new ConnectorError(
      "The private key could not be read: paste the whole PEM (PKCS#8, `-----BEGIN PRIVATE KEY-----` or `-----BEGIN ENCRYPTED PRIVATE KEY-----` with its passphrase).",
    );
  }
}

/** `SHA256:<base64 of the SHA-256 of the public key's DER>`, as DESCRIBE USER shows RSA_PUBLIC_KEY_FP. */
export function publicKeyFingerprint(key: KeyObject): string {
  const der = (key.type === "public" ? key : createPublicKey(key)).export({ type: "spki", format: "der" });
  return `SHA256:${createHash("sha256").update(der).digest("base64")}`;
}

async function keyPairJwt(config: SnowflakeConfig, auth: Extract<SnowflakeConfig["auth"], { kind: "key_pair" }>): Promise<string> {
  const user = auth.username.toUpperCase();
  const cacheKey = createHash("sha256").update(`${config.account}\u0000${user}\u0000${auth.privateKey}\u0000${auth.passphrase ?? ""}`).digest("hex");
  const cached = jwtCache.get(cacheKey);
  if (cached && cached.expiresAt - RENEW_BEFORE_MS > Date.now()) return cached.token;
  const key = privateKeyOf(auth.privateKey, auth.passphrase);
  const qualified = `${config.account}.${user}`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(`${qualified}.${publicKeyFingerprint(key)}`)
    .setSubject(qualified)
    .setIssuedAt(now)
    .setExpirationTime(now + JWT_LIFETIME_SECONDS)
    .sign(key);
  setBounded(jwtCache, cacheKey, { token, expiresAt: (now + JWT_LIFETIME_SECONDS) * 1000 });
  return token;
}

/** How many keys' JWTs are cached (tests). */
export function cachedJwtCount(): number {
  return jwtCache.size;
}

/** The Authorization and token-type headers of every SQL API call. */
export async function snowflakeAuthHeaders(config: SnowflakeConfig): Promise<Record<string, string>> {
  const auth = config.auth;
  if (auth.kind === "pat") {
    return { authorization: `Bearer ${auth.token}`, "x-snowflake-authorization-token-type": "PROGRAMMATIC_ACCESS_TOKEN" };
  }
  return { authorization: `Bearer ${await keyPairJwt(config, auth)}`, "x-snowflake-authorization-token-type": "KEYPAIR_JWT" };
}
