// Forgot-password tells the truth about mail: with SMTP the neutral "on its way"; without it, no
// promise of a link but the way to an administrator. Either answer is the same for every address.
// Sign-up and resend-verification tell the same truth about their verification link.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import {
  forgotPassword,
  RESET_MAILED,
  RESET_NOT_MAILED,
  resendVerificationAnswer,
  SIGNUP_MAILED,
  signupAnswer,
  VERIFY_NOT_MAILED,
  VERIFY_RESENT,
} from "./accounts";

useTestDatabase();

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp.close();
});

const client = () => ({ ip: `192.0.2.${Math.floor(Math.random() * 250) + 1}`, consoleBase: "https://console.test" });

describe("forgot-password answers", () => {
  // First: the process's mailer is made on its first use, with the SMTP_URL of that moment.
  it("with SMTP: the neutral answer, the same for an unknown address, and the mail goes out", async () => {
    process.env.SMTP_URL = smtp.url;
    const { user } = await newMember("Viewer");
    expect(await forgotPassword({ email: user.email }, client())).toBe(RESET_MAILED);
    expect(await forgotPassword({ email: "nobody-here@example.com" }, client())).toBe(RESET_MAILED);
    expect((await smtp.waitFor(user.email)).link).toContain("/reset-password?reset_password_token=");
  });

  it("without SMTP: no link promised, the person sent to an administrator, who is told the command; the same for any address", async () => {
    delete process.env.SMTP_URL;
    const { user } = await newMember("Viewer");
    const known = await forgotPassword({ email: user.email }, client());
    const unknown = await forgotPassword({ email: "nobody-else@example.com" }, client());
    expect(known).toBe(RESET_NOT_MAILED);
    expect(unknown).toBe(known);
    expect(known).not.toMatch(/is on its way\./);
    expect(known).toContain("ask an administrator of this server to reset your password");
    expect(known).toContain("npm run admin -- reset-password EMAIL");
  });
});

describe("sign-up and resend-verification answers", () => {
  it("with SMTP: the link is on its way", () => {
    process.env.SMTP_URL = smtp.url;
    expect(signupAnswer()).toBe(SIGNUP_MAILED);
    expect(resendVerificationAnswer()).toBe(VERIFY_RESENT);
  });

  it("without SMTP: no link promised, the person sent to an administrator, who is told where the link is", () => {
    delete process.env.SMTP_URL;
    for (const answer of [signupAnswer(), resendVerificationAnswer()]) {
      expect(answer).toBe(VERIFY_NOT_MAILED);
      expect(answer).not.toMatch(/is on its way\./);
      expect(answer).toContain("ask an administrator of this server to verify your address");
      expect(answer).toContain("verification link the server's log shows");
    }
  });
});
