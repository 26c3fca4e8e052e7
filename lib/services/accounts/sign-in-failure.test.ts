import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { RateLimited, Unauthorized } from "@/lib/errors";
import { signInErrorMessage, WRONG_CREDENTIALS } from "@/lib/auth/sign-in-error";
import { signInFailure } from "./sign-in-failure";

/** What the console's form shows when authorize() fails with `err` (next-auth's CredentialsSignin for null). */
const shown = (err: unknown) => signInErrorMessage(signInFailure(err)?.message ?? "CredentialsSignin");

describe("console sign-in failures", () => {
  it("reports wrong credentials as such, and nothing else that way", () => {
    expect(shown(new Unauthorized(WRONG_CREDENTIALS))).toBe(WRONG_CREDENTIALS);
    const others = [
      new RateLimited("Too many sign-in attempts; try again in 60 seconds."),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      new Prisma.PrismaClientInitializationError("Can't reach database server", "7.10.0"),
      new TypeError("x is undefined"),
    ];
    for (const err of others) expect(shown(err)).not.toBe(WRONG_CREDENTIALS);
  });

  it("says how long to wait when throttled (429)", () => {
    expect(shown(new RateLimited("Too many sign-in attempts; try again in 60 seconds."))).toBe("Too many sign-in attempts; try again in 60 seconds.");
    expect(signInFailure(new RateLimited("x"))?.logged).toBe(false);
  });

  it("says the database is out of reach during an outage (503), and logs it", () => {
    const refused = Object.assign(new Error("connect failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    expect(shown(refused)).toMatch(/cannot reach its database/);
    expect(shown(new Prisma.PrismaClientInitializationError("Can't reach database server", "7.10.0"))).toMatch(/cannot reach its database/);
    expect(signInFailure(refused)?.logged).toBe(true);
  });

  it("passes on other refusals (an unverified account) and names a server error as one", () => {
    expect(shown(new Unauthorized("This account's email address is not verified yet."))).toBe("This account's email address is not verified yet.");
    expect(shown(new TypeError("x is undefined"))).toMatch(/error on the server/);
  });
});
