import { SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetSecretsCache } from "@/lib/settings/secrets";
import { signToken, verifyToken } from "./jwt";

const saved = { ...process.env };

beforeEach(() => {
  process.env.JWT_SECRET = "jwt-test-secret-0123456789abcdef0123456789";
  process.env.ENCRYPTION_KEY = "jwt-test-encryption-key-0123456789abcdef";
  resetSecretsCache();
});

afterEach(() => {
  vi.useRealTimers();
  process.env = { ...saved };
  resetSecretsCache();
});

describe("verifyToken", () => {
  it("accepts our tokens and refuses tampered or foreign ones", async () => {
    const { token, jti } = await signToken({ userId: 7, kind: "session" });
    expect(await verifyToken(token)).toMatchObject({ sub: "7", jti, kind: "session" });
    const [header, payload, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ sub: "1", jti, kind: "session" })).toString("base64url");
    expect(await verifyToken(`${header}.${forged}.${signature}`)).toBeNull();
    expect(await verifyToken(`${header}.${payload}.${signature.slice(0, -2)}AA`)).toBeNull();
    expect(await verifyToken("a.b.c")).toBeNull();
  });

  it("still expires a token it has verified before", async () => {
    // Only the clock is faked: WebCrypto's promises still settle.
    vi.useFakeTimers({ toFake: ["Date"] });
    process.env.JWT_EXPIRES_IN = "60";
    const { token } = await signToken({ userId: 7, kind: "session" });
    expect(await verifyToken(token)).not.toBeNull();
    vi.setSystemTime(Date.now() + 59_000);
    expect(await verifyToken(token)).not.toBeNull();
    vi.setSystemTime(Date.now() + 1_000);
    expect(await verifyToken(token)).toBeNull();
  });

  it("forgets verified tokens when the key changes", async () => {
    const { token } = await signToken({ userId: 7, kind: "api_token", workspaceId: 3 });
    expect(await verifyToken(token)).toMatchObject({ kind: "api_token", wid: 3 });
    process.env.JWT_SECRET = "another-jwt-secret-0123456789abcdef01234567";
    resetSecretsCache();
    expect(await verifyToken(token)).toBeNull();
  });

  it("refuses a correctly signed session token without exp", async () => {
    const key = new TextEncoder().encode(process.env.JWT_SECRET);
    const sign = (withExp: boolean) => {
      let jwt = new SignJWT({ kind: "session" }).setProtectedHeader({ alg: "HS256" }).setSubject("7").setJti(`j-${withExp}`).setIssuedAt();
      if (withExp) jwt = jwt.setExpirationTime("1h");
      return jwt.sign(key);
    };
    expect(await verifyToken(await sign(true))).not.toBeNull();
    expect(await verifyToken(await sign(false))).toBeNull();
  });
});
