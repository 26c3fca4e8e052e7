import { describe, expect, it } from "vitest";
import { RateLimited, Unauthorized } from "@/lib/errors";
import { useTestDatabase } from "@/tests/helpers/db";
import { login } from "./auth";
import { FIXTURE_PASSWORD, newMember } from "./auth.fixtures";
import { assertLoginAllowed, clientAddress, recordLoginFailure } from "./login-throttle";

useTestDatabase();

const limits = { perAccount: 3, perIp: 5, windowSeconds: 900 };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("login throttle", () => {
  it("locks an account after its limit of failures, with Retry-After, even for the right password", async () => {
    const { user } = await newMember();
    for (let i = 0; i < 10; i++) {
      expect(
        await rejection(login({ email: user.email, password: "wrong" }, { ip: `10.0.0.${i}` })),
      ).toBeInstanceOf(Unauthorized);
    }
    const err = await rejection(login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.0.1.1" }));
    expect(err).toBeInstanceOf(RateLimited);
    const retryAfter = Number((err as RateLimited).headers?.["Retry-After"]);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect((err as RateLimited).message).toMatch(
      /Too many failed sign-in attempts\. Try again in 15 minutes\./,
    );
  });

  it("counts unknown emails too (no hint that an account exists) and is case-insensitive", async () => {
    const who = { email: "Nobody@Example.com", ip: "10.9.9.9" };
    for (let i = 0; i < 3; i++) await recordLoginFailure(who, limits);
    await expect(assertLoginAllowed({ email: "nobody@example.com" }, limits)).rejects.toBeInstanceOf(
      RateLimited,
    );
  });

  it("limits an address that guesses at many accounts", async () => {
    for (let i = 0; i < 5; i++)
      await recordLoginFailure({ email: `a${i}@example.com`, ip: "10.7.7.7" }, limits);
    await expect(
      assertLoginAllowed({ email: "fresh@example.com", ip: "10.7.7.7" }, limits),
    ).rejects.toBeInstanceOf(RateLimited);
    await expect(
      assertLoginAllowed({ email: "fresh@example.com", ip: "10.7.7.8" }, limits),
    ).resolves.toBeUndefined();
  });

  it("forgets failures once the window has passed", async () => {
    const who = { email: "window@example.com" };
    for (let i = 0; i < 3; i++) await recordLoginFailure(who, { ...limits, windowSeconds: 1 });
    await expect(assertLoginAllowed(who, { ...limits, windowSeconds: 1 })).rejects.toBeInstanceOf(
      RateLimited,
    );
    await new Promise((r) => setTimeout(r, 1100));
    await expect(assertLoginAllowed(who, { ...limits, windowSeconds: 1 })).resolves.toBeUndefined();
    await recordLoginFailure(who, { ...limits, windowSeconds: 1 });
    await expect(assertLoginAllowed(who, { ...limits, windowSeconds: 1 })).resolves.toBeUndefined();
  });

  it("a successful sign-in clears the account's failures", async () => {
    const { user } = await newMember();
    for (let i = 0; i < 9; i++) await rejection(login({ email: user.email, password: "wrong" }));
    await login({ email: user.email, password: FIXTURE_PASSWORD });
    for (let i = 0; i < 9; i++) await rejection(login({ email: user.email, password: "wrong" }));
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD })).resolves.toHaveProperty("token");
  });

  it("takes the last X-Forwarded-For hop as the client address", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1, 2.2.2.2" }))).toBe("2.2.2.2");
    expect(clientAddress(new Headers({ "x-real-ip": "3.3.3.3" }))).toBe("3.3.3.3");
    expect(clientAddress(new Headers())).toBeNull();
  });
});
