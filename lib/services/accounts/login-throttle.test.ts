import { describe, expect, it, onTestFinished } from "vitest";
import { RateLimited, Unauthorized } from "@/lib/errors";
import { prisma } from "@/lib/db/client";
import { clientAddress } from "@/lib/http/forwarded";
import { useTestDatabase } from "@/tests/support/db";
import { login } from "./auth";
import { FIXTURE_PASSWORD, newMember } from "@/tests/support/auth-fixtures";
import { beginLoginAttempt, throttleAddress, type ThrottleLimits } from "./login-throttle";

useTestDatabase();

const limits: ThrottleLimits = { perAccountAddress: 3, perIp: 5, windowSeconds: 900, backoffBaseSeconds: 15 };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/**
 * Lets `seconds` pass for the counters of one address: the throttle reads the database's clock, so
 * its timestamps move back instead of the test sleeping.
 */
async function elapse(ip: string, seconds: number): Promise<void> {
  await prisma().$executeRaw`
    UPDATE login_throttles
       SET updated_at = updated_at - make_interval(secs => ${seconds}),
           window_started_at = window_started_at - make_interval(secs => ${seconds})
     WHERE key LIKE ${`%${ip}`}`;
}

/** One failed attempt through the throttle (the reservation is never given back). */
const fail = (email: string, ip?: string, l = limits) => beginLoginAttempt({ email, ip }, l);

describe("login throttle", () => {
  it("makes one account+address wait, with Retry-After, while the owner elsewhere signs in", async () => {
    const { user } = await newMember();
    for (let i = 0; i < 10; i++) {
      expect(
        await rejection(login({ email: user.email, password: "wrong" }, { ip: "10.0.0.1" })),
      ).toBeInstanceOf(Unauthorized);
    }
    const err = await rejection(login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.0.0.1" }));
    expect(err).toBeInstanceOf(RateLimited);
    expect(Number((err as RateLimited).headers?.["Retry-After"])).toBeGreaterThan(0);
    expect((err as RateLimited).message).toMatch(
      /^Too many failed sign-in attempts\. Try again in \d+ (second|minute)s?\.$/,
    );
    await expect(
      login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.0.0.2" }),
    ).resolves.toHaveProperty("token");
  });

  it("doubles the wait with each failure past the limit, up to the window", async () => {
    const who = { email: "backoff@example.com", ip: "10.1.1.1" };
    for (let i = 0; i < 3; i++) await fail(who.email, who.ip);
    const first = (await rejection(fail(who.email, who.ip))) as RateLimited;
    expect(Number(first.headers?.["Retry-After"])).toBe(15);
    // Still waiting a second before the end of the wait; one more failure after it doubles the wait.
    await elapse(who.ip, 14);
    expect(await rejection(fail(who.email, who.ip))).toBeInstanceOf(RateLimited);
    await elapse(who.ip, 1);
    await fail(who.email, who.ip);
    const second = (await rejection(fail(who.email, who.ip))) as RateLimited;
    expect(Number(second.headers?.["Retry-After"])).toBe(30);
  });

  it("counts parallel attempts atomically: no more than the limit pass", async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, () => rejection(fail("parallel@example.com", "10.2.2.2"))),
    );
    expect(results.filter((r) => r === undefined)).toHaveLength(limits.perAccountAddress);
    expect(results.filter((r) => r instanceof RateLimited)).toHaveLength(30 - limits.perAccountAddress);
  });

  it("counts unknown emails too (no hint that an account exists) and is case-insensitive", async () => {
    for (let i = 0; i < 3; i++) await fail("Nobody@Example.com", "10.9.9.9");
    await expect(fail("nobody@example.com", "10.9.9.9")).rejects.toBeInstanceOf(RateLimited);
  });

  it("limits an address that guesses at many accounts, except for accounts that signed in from it and one first attempt at each other account", async () => {
    const { user } = await newMember();
    await login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.7.7.7" });
    for (let i = 0; i < 5; i++) await fail(`a${i}@example.com`, "10.7.7.7");
    // Over the limit: an account it guessed at is refused; another gets one first attempt, once.
    await expect(fail("a0@example.com", "10.7.7.7")).rejects.toBeInstanceOf(RateLimited);
    await expect(fail("fresh@example.com", "10.7.7.7")).resolves.toBeDefined();
    await expect(fail("fresh@example.com", "10.7.7.7")).rejects.toBeInstanceOf(RateLimited);
    // The first attempt is the account's, not the address's: another over-limit address gets none.
    for (let i = 0; i < 5; i++) await fail(`b${i}@example.com`, "10.7.7.9");
    await expect(fail("fresh@example.com", "10.7.7.9")).rejects.toBeInstanceOf(RateLimited);
    await expect(fail("fresh@example.com", "10.7.7.8")).resolves.toBeDefined();
    const known = await beginLoginAttempt({ email: user.email, ip: "10.7.7.7" }, limits);
    await known.succeeded();
  });

  it("lets a new person behind a busy shared address sign in at once, and again after that", async () => {
    // login() reads its limits from the environment.
    process.env.LOGIN_MAX_FAILURES_PER_IP = "5";
    onTestFinished(() => void delete process.env.LOGIN_MAX_FAILURES_PER_IP);
    const { user } = await newMember();
    for (let i = 0; i < 6; i++) await rejection(login({ email: `c${i}@example.com`, password: "not-it" }, { ip: "10.8.8.8" }));
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.8.8.8" })).resolves.toHaveProperty("token");
    // Now known from that address: signs in whatever the address's count.
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.8.8.8" })).resolves.toHaveProperty("token");
    // A wrong first attempt uses it up: the right password then waits for the address's window.
    const { user: typo } = await newMember();
    await expect(rejection(login({ email: typo.email, password: "not-it" }, { ip: "10.8.8.8" }))).resolves.toBeInstanceOf(Unauthorized);
    await expect(rejection(login({ email: typo.email, password: FIXTURE_PASSWORD }, { ip: "10.8.8.8" }))).resolves.toBeInstanceOf(RateLimited);
    // Parallel first attempts at one account: one is checked.
    const { user: raced } = await newMember();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => rejection(login({ email: raced.email, password: "not-it" }, { ip: "10.8.8.8" }))));
    expect(outcomes.filter((e) => e instanceof Unauthorized)).toHaveLength(1);
    expect(outcomes.filter((e) => e instanceof RateLimited)).toHaveLength(7);
  });

  it("a success gives its reservations back and clears the account+address counter", async () => {
    const { user } = await newMember();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 9; i++)
        await rejection(login({ email: user.email, password: "wrong" }, { ip: "10.3.3.3" }));
      await expect(
        login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "10.3.3.3" }),
      ).resolves.toHaveProperty("token");
    }
  });

  it("forgets an account+address counter after a quiet window", async () => {
    for (let i = 0; i < 3; i++) await fail("window@example.com", "10.4.4.4");
    await expect(fail("window@example.com", "10.4.4.4")).rejects.toBeInstanceOf(RateLimited);
    await elapse("10.4.4.4", limits.windowSeconds);
    await expect(fail("window@example.com", "10.4.4.4")).resolves.toBeDefined();
  });

  it("judges an IPv6 client by its /64, so rotating through the block earns no fresh budget", async () => {
    expect(throttleAddress("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(throttleAddress("2001:0db8:0001:0002:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(throttleAddress("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(throttleAddress("10.1.2.3")).toBe("10.1.2.3");
    const { user } = await newMember();
    for (let i = 0; i < 10; i++) {
      expect(await rejection(login({ email: user.email, password: "wrong" }, { ip: `2001:db8:9:9::${i + 1}` }))).toBeInstanceOf(Unauthorized);
    }
    expect(await rejection(login({ email: user.email, password: "wrong" }, { ip: "2001:db8:9:9:abcd::77" }))).toBeInstanceOf(RateLimited);
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD }, { ip: "2001:db8:9:a::1" })).resolves.toHaveProperty("token");
  });

  it("takes the last X-Forwarded-For hop as the client address", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1, 2.2.2.2" }))).toBe("2.2.2.2");
    expect(clientAddress(new Headers({ "x-real-ip": "3.3.3.3" }))).toBe("3.3.3.3");
    expect(clientAddress(new Headers())).toBeNull();
  });
});
