// A real SMTP server on 127.0.0.1 that keeps every message it receives, for tests of the mail path
// (lib/mail): the product talks SMTP to it exactly as it would to a mail relay.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The message's header block as received (continuation lines unfolded), to look for injected headers. */
  headers: string;
  /** The first http(s) link of the text. */
  link?: string;
}

/** Decodes the single text part nodemailer writes (7bit, quoted-printable or base64). */
function decode(raw: string): { subject: string; text: string; headers: string } {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(headers)?.[1]?.trim() ?? "";
  let body = rest.join("\n\n");
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  if (encoding === "quoted-printable") {
    body = Buffer.from(
      body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      "latin1",
    ).toString("utf8");
  } else if (encoding === "base64") {
    body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  }
  return { subject: header("Subject"), text: body.replace(/\r\n/g, "\n"), headers };
}

export interface SmtpCapture {
  port: number;
  url: string;
  mails: CapturedMail[];
  /** Resolves with the first mail to `to` (case-insensitive) matching `match`, waiting up to `ms`. */
  waitFor(to: string, match?: (m: CapturedMail) => boolean, ms?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

export async function startSmtpCapture(port = 0): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const { subject, text, headers } = decode(Buffer.concat(chunks).toString("utf8"));
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject,
          text,
          headers,
          link: /https?:\/\/\S+/.exec(text)?.[0],
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    mails,
    async waitFor(to, match = () => true, ms = 15_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = mails.find((m) => m.to.includes(to.toLowerCase()) && match(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${ms} ms (got ${mails.length} in all)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
