// Sign-in, sign-out and the guard on console pages.
import { ADMIN } from "../support/api";
import { expect, shot, signIn, test, url } from "./fixtures";

test("console pages send a signed-out visitor to sign in, and back afterwards", async ({ page, consoleErrors }) => {
  test.setTimeout(180_000);
  void consoleErrors;
  await page.goto(url("/syncs"));
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fsyncs/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible({ timeout: 60_000 });
  await shot(page, "login");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Syncs" })).toBeVisible({ timeout: 60_000 });
});

test("signing out ends the session", async ({ page, consoleErrors }) => {
  test.setTimeout(180_000);
  void consoleErrors;
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible({ timeout: 60_000 });
  await page.goto(url("/dashboard"));
  await expect(page).toHaveURL(/\/login/);
});

test("the first-run page says setup is complete once an admin exists", async ({ page, consoleErrors }) => {
  void consoleErrors;
  await page.goto(url("/setup"));
  await expect(page.getByRole("heading", { name: "Setup is complete" })).toBeVisible({ timeout: 60_000 });
  const res = await page.request.post(url("/api/v1/setup"), { data: { name: "X", email: "x@example.com", password: "long-enough-1" } });
  expect(res.status()).toBe(409);
});

test("sign-in tells a throttled attempt apart from a wrong password", async ({ page }) => {
  test.setTimeout(180_000);
  // No consoleErrors fixture: the browser logs each refused sign-in (HTTP 401) as a console error.
  const octet = () => Math.floor(Math.random() * 250) + 1;
  // Its own client address (the e2e server trusts X-Forwarded-For), so no other test's attempts count.
  await page.setExtraHTTPHeaders({ "x-forwarded-for": `10.${octet()}.${octet()}.${octet()}` });
  await page.goto(url("/login"));
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible({ timeout: 60_000 });
  await page.getByLabel("Email").fill(`nobody-${octet()}-${Date.now()}@example.com`);
  await page.getByLabel("Password").fill("not-the-password-1");
  const attempt = async () => {
    await Promise.all([page.waitForResponse((r) => r.url().includes("/api/auth/callback/credentials")), page.getByRole("button", { name: "Sign in" }).click()]);
    return page.locator("form").getByRole("alert");
  };
  // LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS (10) wrong passwords, then the account+address waits.
  for (let i = 0; i < 10; i++) await expect(await attempt()).toHaveText("The email or password is incorrect.");
  await expect(await attempt()).toHaveText(/^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/);
});
