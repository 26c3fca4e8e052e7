// `npm run admin -- reset-password EMAIL` for real: the function on a cloned database, and the
// command as a child process (what an operator types), on the same database.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { signToken } from "@/lib/auth/jwt";
import { verifyPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { login } from "@/lib/services/accounts/auth";
import { authenticate } from "@/lib/services/accounts/auth-context";
import { FIXTURE_PASSWORD, newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { createApiToken } from "@/lib/services/accounts/api-tokens";
import { resetPasswordByEmail, UnknownAccount } from "./reset-password";

const db = useTestDatabase();

function runAdmin(...args: string[]) {
  return spawnSync("node_modules/.bin/tsx", ["--tsconfig", "tsconfig.node.json", "scripts/admin.ts", ...args], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: db.url(), LOG_LEVEL: "silent" },
    timeout: 120_000,
  });
}

describe("resetPasswordByEmail", () => {
  it("sets a new password that signs in, ends the sessions signed before, and clears the lock-out", async () => {
    const { user } = await newMember("Admin");
    const { token: before } = await signToken({ userId: user.id, kind: "session" });
    await prisma().loginThrottle.create({ data: { key: `pair:${user.email}|127.0.0.1`, failures: 99, windowStartedAt: new Date() } });

    const reset = await resetPasswordByEmail(`  ${user.email.toUpperCase()} `);

    expect(reset.email).toBe(user.email);
    expect(reset.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const stored = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(reset.password, stored.passwordHash)).toBe(true);
    expect(await verifyPassword(FIXTURE_PASSWORD, stored.passwordHash)).toBe(false);
    await expect(authenticate(before, null)).rejects.toThrow();
    expect(await prisma().loginThrottle.count({ where: { key: { startsWith: `pair:${user.email}|` } } })).toBe(0);
    await expect(login({ email: user.email, password: reset.password }, { ip: "127.0.0.1" })).resolves.toMatchObject({ userId: user.id });
  });

  it("revokes every API token of the account, in every workspace", async () => {
    const { user, auth } = await newMember("Admin");
    const token = await createApiToken(auth, { name: "before the reset" });
    const minted = await createApiToken(await authenticate(token.token, null), { name: "minted by it" });
    const reset = await resetPasswordByEmail(user.email);
    expect(reset.revokedTokens).toBe(2);
    for (const t of [token, minted]) await expect(authenticate(t.token, null)).rejects.toThrow(/revoked/);
  });

  it("names an unknown address instead of creating an account", async () => {
    const users = await prisma().user.count();
    await expect(resetPasswordByEmail("nobody@example.com")).rejects.toBeInstanceOf(UnknownAccount);
    await expect(resetPasswordByEmail("nobody@example.com")).rejects.toThrow('No account has the email address "nobody@example.com"');
    expect(await prisma().user.count()).toBe(users);
  });
});

describe("npm run admin -- reset-password", () => {
  it("prints the new password in a box, and it is the one stored", async () => {
    const { user } = await newMember("Member");
    const result = runAdmin("reset-password", user.email);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const password = /^\|\s+([A-Za-z0-9_-]{16})\s+\|$/m.exec(result.stdout)?.[1];
    expect(result.stdout).toContain(`New password for ${user.email}:`);
    expect(password).toBeTruthy();
    const stored = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(password!, stored.passwordHash)).toBe(true);
    expect(result.stdout).toMatch(/Every earlier session has ended; API tokens revoked: 0\./);
  });

  it("exits 1 with a sentence for an unknown address, and 2 with the usage for a bad command", () => {
    const unknown = runAdmin("reset-password", "nobody@example.com");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('No account has the email address "nobody@example.com"');
    const usage = runAdmin("reset-pasword");
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("Usage: npm run admin -- reset-password EMAIL");
  });
});
