// Issue 35, point 4: the account pages tell the truth about mail. On the test server (no SMTP_URL)
// Forgot password promises no link but sends the person to an administrator and names the command
// the administrator runs, and Settings → Members says an invitation is not mailed but logged. On a
// second server with SMTP (a capture server on 127.0.0.1), both promise mail and the mail arrives.
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { ADMIN } from "../support/api";
import { waitForMail } from "../support/mailbox";
import { startSecondServer, type SecondServer } from "../support/second-server";
import { startSmtpCapture, type SmtpCapture } from "../support/smtp";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";

test.describe.configure({ timeout: 420_000 });

const CONSOLE = "https://console.example.test";
let mailing: Promise<{ server: SecondServer; smtp: SmtpCapture }> | undefined;

/** The server with mail, started once for the file (by the first test that needs it). */
function serverWithMail() {
  mailing ??= (async () => {
    const smtp = await startSmtpCapture();
    const server = await startSecondServer({
      env: { SMTP_URL: smtp.url, CONSOLE_URL: CONSOLE, MAIL_FROM: "Datasync <sync@example.test>" },
      dataDir: ".data/e2e-accounts-truth",
      waitSeconds: 380,
    });
    return { server, smtp };
  })();
  return mailing;
}

test.afterAll(async () => {
  if (!mailing) return;
  const { server, smtp } = await mailing;
  server.stop();
  await smtp.close();
});

const unique = (what: string) => `${what}-${randomBytes(4).toString("hex")}@example.com`;

/** The account endpoints are throttled per client address: each test asks from one of its own. */
async function fromOwnAddress(page: Page) {
  await page.setExtraHTTPHeaders({ "X-Forwarded-For": `198.18.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}` });
}

/** Asks for a reset on /forgot-password of `base`; the answer shown. */
async function askForReset(page: Page, base: string, email: string, button: string) {
  await page.goto(`${base}/forgot-password`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: button }).click();
  const answer = page.getByRole("status");
  await expect(answer).toBeVisible({ timeout: 60_000 });
  return (await answer.textContent()) ?? "";
}

/** Opens Settings → Members on `base`, invites `email` as a Viewer and returns the dialog's and the toast's words. */
async function invite(page: Page, base: string, email: string) {
  await page.goto(`${base}/settings/members`);
  await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Add member" }).click();
  const dialog = page.getByRole("dialog");
  const description = (await dialog.textContent()) ?? "";
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Name").fill("Ivy Invited");
  await dialog.getByLabel("Role").selectOption({ label: "Viewer" });
  await dialog.getByRole("button", { name: "Add member" }).click();
  const toast = page.getByTestId("toast-success").filter({ hasText: email });
  await expect(toast).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("row").filter({ hasText: email })).toContainText("Pending invitation");
  return { description, toast: (await toast.textContent()) ?? "" };
}

atEachViewport(() => {
  test("without SMTP, Forgot password sends the person to an administrator and names the command, whatever the address", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await fromOwnAddress(page);
    await page.goto(url("/forgot-password"));
    await expect(page.getByText("This server sends no mail, so it cannot mail you a link")).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText("We mail you a link")).toHaveCount(0);

    const known = await askForReset(page, url(""), ADMIN.email, "Ask for a reset");
    await attachShot(page, testInfo, "forgot-password-no-smtp");
    expect(known).not.toContain("is on its way.");
    expect(known).toContain("no link is on its way: ask an administrator of this server to reset your password");
    expect(known).toContain("npm run admin -- reset-password EMAIL");
    // The same words for an address no account uses: the page tells nobody who has an account.
    expect(await askForReset(page, url(""), unique("nobody"), "Ask for a reset")).toBe(known);
  });

  test("without SMTP, inviting says the link is not mailed but in the server's log", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    const email = unique("logged");
    await signIn(page, ADMIN.email, ADMIN.password);
    const said = await invite(page, url(""), email);
    expect(said.description).toContain("This server sends no mail (SMTP_URL is not set): the invitation link is written to the server's log");
    expect(said.description).not.toContain("They get a link at this address");
    expect(said.toast).toContain("invited, but not mailed: this server sends no mail");
    await attachShot(page, testInfo, "invitation-no-smtp");
    // Where the toast says: the server logged it (and, on this test server, kept it in MAIL_DIR).
    expect((await waitForMail(email, (m) => m.subject.startsWith("You are invited"))).link).toContain("/accept-invitation?invitation_token=");
  });

  test("with SMTP, Forgot password and invitations promise mail, and the mails arrive", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    test.setTimeout(420_000);
    const { server, smtp } = await serverWithMail();
    await fromOwnAddress(page);
    await page.goto(`${server.base}/forgot-password`);
    await expect(page.getByText("We mail you a link to choose a new one.")).toBeVisible({ timeout: 120_000 });
    const answer = await askForReset(page, server.base, ADMIN.email, "Send the link");
    expect(answer).toBe("If an account uses this address, a link to reset its password is on its way.");
    expect((await smtp.waitFor(ADMIN.email, (m) => m.subject === "Reset your password")).link).toMatch(/^https:\/\/console\.example\.test\/reset-password\?/);

    await page.context().clearCookies();
    await page.goto(`${server.base}/login`);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/, { timeout: 120_000 });
    const email = unique("mailed");
    const said = await invite(page, server.base, email);
    expect(said.description).toContain("They get a link at this address");
    expect(said.toast).toContain("they join once they accept through the link mailed to them");
    await attachShot(page, testInfo, "invitation-smtp");
    // The subject names the workspace in quotes, so it arrives MIME-encoded: the link tells the invitation.
    const mail = await smtp.waitFor(email, (m) => m.link?.includes("/accept-invitation?") ?? false);
    expect(mail.from).toBe("sync@example.test");
    expect(mail.link).toMatch(/^https:\/\/console\.example\.test\/accept-invitation\?invitation_token=[\w-]+&new_account=1$/);
  });
});
