// The mail caps an Admin meets when using the product to mail addresses of their choosing
// (mail-caps.ts), against real PostgreSQL and a real SMTP server (e2e/support/smtp.ts): each test
// performs the attack. Over HTTP: e2e/api/security-accounts.spec.ts.
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { prisma } from "@/lib/db/client";
import { RateLimited } from "@/lib/errors";
import { newMember, signedIn, systemRoleId } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { addMember } from "./members";
import { createWorkspace } from "./workspaces";

useTestDatabase();

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp?.close();
});
const settings = ["INVITATION_MAX_PER_WORKSPACE_PER_HOUR", "INVITATION_MAX_PER_USER_PER_HOUR", "WORKSPACE_MAX_CREATED_PER_USER_PER_DAY"];
afterEach(() => {
  for (const name of settings) delete process.env[name];
});

const base = { consoleBase: "https://console.test" };
const victim = () => `victim-${randomBytes(4).toString("hex")}@example.net`;
const invite = async (email = victim()) => ({ email, name: "Victim", role_id: await systemRoleId("Viewer") });

/** The 429 a call ends in: its sentence and Retry-After. */
async function refusal(call: Promise<unknown>): Promise<{ message: string; retryAfter: number }> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RateLimited);
  const limited = err as RateLimited;
  return { message: limited.message, retryAfter: Number(limited.headers?.["Retry-After"]) };
}

/** RFC 2047 encoded words (nodemailer writes a non-ASCII subject so) as the text a mail reader shows. */
const decodeWords = (header: string) =>
  header
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toLowerCase() === "b"
        ? Buffer.from(data, "base64").toString("utf8")
        : Buffer.from(data.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_h, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8"),
    );

describe("invitation caps", () => {
  it("a workspace sends at most INVITATION_MAX_PER_WORKSPACE_PER_HOUR invitations; the next is a 429 naming the setting, with Retry-After", async () => {
    process.env.INVITATION_MAX_PER_WORKSPACE_PER_HOUR = "3";
    const admin = await newMember("Admin");
    for (let i = 0; i < 3; i++) await addMember(admin.auth, admin.workspaceId, await invite(), base);
    const target = victim();
    const { message, retryAfter } = await refusal(addMember(admin.auth, admin.workspaceId, await invite(target), base));
    expect(message).toMatch(/INVITATION_MAX_PER_WORKSPACE_PER_HOUR/);
    expect(message).toMatch(/Try again in \d+ minutes?\./);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await prisma().user.count({ where: { email: target } })).toBe(0);
    // Another Admin of the same workspace shares its cap.
    const other = await newMember("Admin", admin.workspaceId);
    await refusal(addMember(other.auth, admin.workspaceId, await invite(), base));
  });

  it("an invitation that is refused (already invited) gives its place under the caps back", async () => {
    process.env.INVITATION_MAX_PER_WORKSPACE_PER_HOUR = "2";
    const admin = await newMember("Admin");
    const twice = await invite();
    await addMember(admin.auth, admin.workspaceId, twice, base);
    await expect(addMember(admin.auth, admin.workspaceId, twice, base)).rejects.toThrow(/already invited/);
    await addMember(admin.auth, admin.workspaceId, await invite(), base);
    await refusal(addMember(admin.auth, admin.workspaceId, await invite(), base));
  });

  it("one user sends at most INVITATION_MAX_PER_USER_PER_HOUR invitations from all their workspaces together", async () => {
    process.env.INVITATION_MAX_PER_USER_PER_HOUR = "3";
    const admin = await newMember("Admin");
    const second = await createWorkspace(admin.auth, { name: "Second" });
    const elsewhere = await signedIn(admin.user.id, second.id);
    await addMember(admin.auth, admin.workspaceId, await invite(), base);
    await addMember(admin.auth, admin.workspaceId, await invite(), base);
    await addMember(elsewhere, second.id, await invite(), base);
    const { message } = await refusal(addMember(elsewhere, second.id, await invite(), base));
    expect(message).toMatch(/INVITATION_MAX_PER_USER_PER_HOUR/);
    await refusal(addMember(admin.auth, admin.workspaceId, await invite(), base));
    // The user's cap did not eat the workspace's: another Admin there still invites.
    const colleague = await newMember("Admin", second.id);
    await addMember(colleague.auth, second.id, await invite(), base);
  });
});

describe("workspace creation cap", () => {
  it("one user creates at most WORKSPACE_MAX_CREATED_PER_USER_PER_DAY workspaces a day, so more workspaces cannot multiply the per-workspace mail caps", async () => {
    process.env.WORKSPACE_MAX_CREATED_PER_USER_PER_DAY = "2";
    const { auth, user } = await newMember("Admin");
    await createWorkspace(auth, { name: "Spam 1" });
    await createWorkspace(auth, { name: "Spam 2" });
    const before = await prisma().workspace.count();
    const { message, retryAfter } = await refusal(createWorkspace(auth, { name: "Spam 3" }));
    expect(message).toMatch(/WORKSPACE_MAX_CREATED_PER_USER_PER_DAY/);
    expect(retryAfter).toBeGreaterThan(3600);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await prisma().workspace.count()).toBe(before);
    // Someone else's budget is their own.
    const other = await newMember("Admin");
    await createWorkspace(other.auth, { name: "Fine" });
    expect(user.id).not.toBe(other.user.id);
  });
});

describe("invitation mail text", () => {
  it("a workspace name with CR/LF, a header of its own and a long text reaches the subject as one quoted line, cut short; the inviter's name too in the body", async () => {
    const admin = await newMember("Admin");
    const name = `Acme\r\nBcc: victim@evil.test\r\n${"Your account is suspended, call +1 555 0100 now ".repeat(2)}`;
    await prisma().workspace.update({ where: { id: admin.workspaceId }, data: { name } });
    await prisma().user.update({ where: { id: admin.user.id }, data: { name: "Support\nX-Spam: no\tteam" } });
    const auth = await signedIn(admin.user.id, admin.workspaceId);
    const to = victim();
    await addMember(auth, admin.workspaceId, await invite(to), base);
    const mail = await smtp.waitFor(to);
    expect(mail.headers).not.toMatch(/^Bcc:/im);
    expect(mail.headers).not.toMatch(/^X-Spam:/im);
    const subject = decodeWords(mail.subject);
    expect(subject).toBe('You are invited to the Datasync workspace "Acme Bcc: victim@evil.test Your account…"');
    const [first] = mail.text.split("\n");
    expect(first).toBe(
      `"Support X-Spam: no team" (${admin.user.email}) invited this address into the Datasync workspace "Acme Bcc: victim@evil.test Your account…".`,
    );
  });
});
