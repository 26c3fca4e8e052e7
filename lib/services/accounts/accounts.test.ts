// The account services against a real database, their mail over a real local SMTP server: what
// must hold under concurrency (one account per address, one use per token) and for users created
// other ways (they count as verified).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { prisma } from "@/lib/db/client";
import { Unauthorized, ValidationFailed } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { forgotPassword, resendVerification, resetPassword, signup, verifyUser } from "./accounts";
import { login } from "./auth";
import { FIXTURE_PASSWORD, newMember, systemRoleId } from "@/tests/support/auth-fixtures";
import { acceptInvitation } from "./invitations";
import { addMember } from "./members";

useTestDatabase();

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  process.env.SMTP_URL = smtp.url; // read by the mailer on its first use in this file
  await systemRoleId("Admin");
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp.close();
});

const client = () => ({ ip: `192.0.2.${Math.floor(Math.random() * 250) + 1}`, consoleBase: "https://console.test" });
const input = (email: string) => ({
  name: "Sam",
  email,
  password: "sam-password-1",
  password_confirmation: "sam-password-1",
  company_name: "Sam Co",
});

describe("accounts", () => {
  it("two sign-ups of one address at once make one account and answer alike", async () => {
    const email = "race@example.com";
    const results = await Promise.all([signup(input(email), client()), signup(input(email), client())]);
    expect(results.map((r) => r.email)).toEqual([email, email]);
    expect(await prisma().user.count({ where: { email } })).toBe(1);
    const user = await prisma().user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    expect(user.confirmedAt).toBeNull();
    expect(user.memberships).toHaveLength(1);
    await expect(login({ email, password: "sam-password-1" })).rejects.toThrow(/not verified/);
  });

  it("users made any other way (fixtures, invitations, the first admin) count as verified", async () => {
    const { user } = await newMember("Viewer");
    expect(user.confirmedAt).toBeInstanceOf(Date);
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD })).resolves.toMatchObject({ userId: user.id });
  });

  it("a reset token works once, even when two requests use it at the same time", async () => {
    const { user } = await newMember("Member");
    await forgotPassword({ email: user.email }, client());
    const mail = await smtp.waitFor(user.email);
    const token = new URL(mail.link!).searchParams.get("reset_password_token")!;
    const use = (password: string) =>
      resetPassword({ reset_password_token: token, password, password_confirmation: password }, client());
    const outcomes = await Promise.allSettled([use("first-new-password-1"), use("second-new-password-1")]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ValidationFailed);
    const logins = await Promise.allSettled([
      login({ email: user.email, password: "first-new-password-1" }),
      login({ email: user.email, password: "second-new-password-1" }),
    ]);
    expect(logins.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    await expect(login({ email: user.email, password: FIXTURE_PASSWORD })).rejects.toBeInstanceOf(Unauthorized);
    expect(await prisma().accountToken.count({ where: { userId: user.id } })).toBe(0);
  });

  // Pre-account hijacking: a stranger signs up the victim's address (unverified, the stranger's
  // password); the victim's company then invites that address; the stranger asks for a new
  // verification link, which lands in the victim's inbox right after the invitation. Had the
  // invitation left the stranger's password in place, the victim's click would hand the stranger a
  // verified account; an invitation that set a password would hand it to the inviter instead.
  it("an invitation to an unverified sign-up wipes the stranger's password; only the invitation link sets one", async () => {
    const email = "prehijack@example.com";
    await signup({ ...input(email), password: "stranger-pass-1", password_confirmation: "stranger-pass-1" }, client());
    const first = await smtp.waitFor(email);
    const company = await newMember("Admin");
    await addMember(
      company.auth,
      company.workspaceId,
      { email, name: "Victim", role_id: await systemRoleId("Member") },
      { consoleBase: "https://console.test" },
    );
    await resendVerification({ email }, client());
    const mail = await smtp.waitFor(email, (m) => m.link !== first.link && (m.link?.includes("confirmation_token") ?? false), 3_000).catch(() => undefined);
    const token = mail ? new URL(mail.link!).searchParams.get("confirmation_token") : null;
    if (token) await verifyUser({ confirmation_token: token }, client()).catch(() => undefined);
    await expect(login({ email, password: "stranger-pass-1" })).rejects.toBeInstanceOf(Unauthorized);
    const invitation = await smtp.waitFor(email, (m) => m.link?.includes("invitation_token") ?? false);
    const url = new URL(invitation.link!);
    expect(url.searchParams.get("new_account")).toBe("1");
    const invitationToken = url.searchParams.get("invitation_token")!;
    await expect(acceptInvitation({ invitation_token: invitationToken, password: "stranger-pass-1" }, client())).rejects.toThrow(
      /password_confirmation: is required/,
    );
    await acceptInvitation({ invitation_token: invitationToken, password: "owner-chosen-1", password_confirmation: "owner-chosen-1" }, client());
    await expect(login({ email, password: "stranger-pass-1" })).rejects.toBeInstanceOf(Unauthorized);
    const session = await login({ email, password: "owner-chosen-1" });
    expect(session.userId).toBeGreaterThan(0);
  });
});
