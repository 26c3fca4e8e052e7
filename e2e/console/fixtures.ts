// Console test fixtures: every page fails its test on a browser console error or an uncaught
// exception, and screenshots of the main pages go to test-results/screenshots/<name>.png.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as base, expect, type Page, type TestInfo } from "@playwright/test";

export { expect };

/** Absolute base for local runs against another server (e.g. a dev server); empty = the config's baseURL. */
export const BASE = process.env.CONSOLE_BASE_URL ?? "";
export const url = (p: string) => `${BASE}${p}`;

export const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(`console.error on ${page.url()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => errors.push(`uncaught on ${page.url()}: ${err.message}`));
    await use(errors);
    expect(errors, "the browser console stayed free of errors").toEqual([]);
  },
  page: async ({ page }, use) => {
    page.setDefaultTimeout(30_000);
    page.setDefaultNavigationTimeout(120_000);
    await use(page);
  },
});

const SHOTS = path.resolve("test-results", "screenshots");

/** A full-page screenshot of a main page, kept as a test artifact. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(url("/login"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard$/, { timeout: 120_000 });
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

/** Clicks a sidebar entry and waits for its page heading. */
export async function nav(page: Page, label: string, heading = label): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible({ timeout: 60_000 });
}

/** A full-page screenshot, kept in the test's output folder and attached to its results under `<name>-<width>x<height>`. */
export async function attachShot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };
  const file = testInfo.outputPath(`${name}-${width}x${height}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(`${name}-${width}x${height}`, { path: file, contentType: "image/png" });
}

/** The two console sizes every console fix is shown at (issue 35): a laptop and a desktop screen. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
] as const;

/**
 * Declares `body` once per size in VIEWPORTS, each inside its own describe titled "at <w>×<h>" with
 * that viewport, so a spec shows its behaviour at both widths without repeating itself.
 */
export function atEachViewport(body: (viewport: (typeof VIEWPORTS)[number]) => void): void {
  for (const viewport of VIEWPORTS) {
    test.describe(`at ${viewport.width}×${viewport.height}`, () => {
      test.use({ viewport });
      body(viewport);
    });
  }
}
