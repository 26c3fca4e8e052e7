// Settings → Members invites without a password; the invited person opens the mailed link, chooses
// their password on /accept-invitation and signs in; until then the member is a pending invitation.
import { randomBytes } from "node:crypto";
import { waitForMail } from "../support/mailbox";
import { expect, signIn, test, url } from "./fixtures";
import { ADMIN } from "../support/api";

const email = `invited-${randomBytes(4).toString("hex")}@example.com`;
const password = "my-own-choice-7";

test("an invited person is pending until they accept through the link and choose their password", async ({ page, consoleErrors }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url("/settings/members"));
  await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Add member" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByLabel(/password/i)).toHaveCount(0);
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Name").fill("Ivy Invited");
  await dialog.getByLabel("Role").selectOption({ label: "Viewer" });
  await dialog.getByRole("button", { name: "Add member" }).click();
  const row = page.getByRole("row").filter({ hasText: email });
  await expect(row).toContainText("Pending invitation", { timeout: 30_000 });

  const mail = await waitForMail(email, (m) => m.subject.startsWith("You are invited"));
  const link = new URL(mail.link!);
  expect(link.searchParams.get("new_account")).toBe("1");
  await page.context().clearCookies();
  await page.goto(url(`${link.pathname}${link.search}`));
  await expect(page.getByRole("heading", { name: "Accept the invitation" })).toBeVisible({ timeout: 60_000 });
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("The password again").fill(password);
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await expect(page.getByRole("status")).toContainText("You joined the workspace", { timeout: 30_000 });

  await signIn(page, email, password);
  await expect(page.getByText("Your role: Viewer")).toBeVisible({ timeout: 60_000 });
});
