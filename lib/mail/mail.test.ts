// The mail module over real SMTP (a local smtp-server) and its log path (pino into a buffer).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture, type SmtpCapture } from "@/e2e/support/smtp";
import { createMailer } from "./index";

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
});
afterAll(() => smtp.close());

const message = {
  to: "someone@example.com",
  subject: "Reset your password",
  text: `Open this link:\n\nhttps://console.example.com/reset-password?reset_password_token=${"x".repeat(60)}\n`,
  link: `https://console.example.com/reset-password?reset_password_token=${"x".repeat(60)}`,
};

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

describe("lib/mail", () => {
  it("sends through SMTP_URL when it is set, and logs no link", async () => {
    const { logger, lines } = memoryLogger();
    const mailer = createMailer({ smtpUrl: smtp.url, from: "Datasync <sync@example.com>", logger });
    expect(await mailer.send(message)).toBe("smtp");
    const got = await smtp.waitFor("someone@example.com");
    expect(got.from).toBe("sync@example.com");
    expect(got.subject).toBe("Reset your password");
    expect(got.link).toBe(message.link);
    expect(JSON.stringify(lines)).not.toContain("reset_password_token");
  });

  it("logs the link once at info level when SMTP_URL is unset", async () => {
    const { logger, lines } = memoryLogger();
    const mailer = createMailer({ from: "x@example.com", logger });
    expect(await mailer.send({ ...message, to: "nobody@example.com" })).toBe("logged");
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, mail: { to: "nobody@example.com", link: message.link } });
    expect(String(lines[0].msg)).toContain(message.link);
    expect(String(lines[0].msg)).toMatch(/SMTP_URL is not set/);
    expect(smtp.mails.some((m) => m.to.includes("nobody@example.com"))).toBe(false);
  });

  it("with MAIL_DIR, keeps each unsent mail as a private JSON file there too; with SMTP, writes none", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "mail-")), "kept");
    try {
      const { logger } = memoryLogger();
      expect(await createMailer({ from: "x@example.com", mailDir: dir, logger }).send(message)).toBe("logged");
      const [name] = readdirSync(dir);
      expect(name).toMatch(/^\d+-[0-9a-f]{12}\.json$/);
      expect(JSON.parse(readFileSync(path.join(dir, name), "utf8"))).toEqual(message);
      expect(statSync(path.join(dir, name)).mode & 0o077).toBe(0);
      await createMailer({ smtpUrl: smtp.url, from: "x@example.com", mailDir: dir, logger }).send(message);
      expect(readdirSync(dir)).toHaveLength(1);
    } finally {
      rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it("an unreachable SMTP server fails the send (the caller's background send logs it)", async () => {
    const mailer = createMailer({ smtpUrl: "smtp://127.0.0.1:1", from: "x@example.com" });
    await expect(mailer.send(message)).rejects.toThrow();
  });
});
