// The connector gallery of the "new source" / "new destination" wizards: each card shows its
// definition's icon (an SVG of public/icons, loaded from this server), a broken icon falls back to
// the generic one, category chips and the search box narrow the cards, and a card still opens its form.
import type { Locator, Page } from "@playwright/test";
import { ADMIN } from "../support/api";
import { expect, shot, signIn, test, url } from "./fixtures";

const card = (page: Page, title: string | RegExp) => page.getByRole("list", { name: "Connectors" }).getByRole("button", { name: title });

/** The card's icon image has loaded (a real picture, not a broken image). */
async function expectLoadedIcon(button: Locator, src: string) {
  const img = button.locator("img");
  await expect(img).toHaveAttribute("src", src);
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
}

test("sources: icons, category chips, search, generic fallback", async ({ page, consoleErrors }) => {
  test.setTimeout(240_000);
  void consoleErrors;
  // The Slack icon answers with a body that is no image: its card must show the generic icon.
  await page.route("**/icons/slack.svg", (route) => route.fulfill({ status: 200, contentType: "image/svg+xml", body: "not an svg" }));
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url("/sources/new"));
  await expect(card(page, /PostgreSQL/)).toBeVisible({ timeout: 60_000 });

  await expectLoadedIcon(card(page, /PostgreSQL/), "/icons/postgresql.svg");
  await expectLoadedIcon(card(page, /MariaDB/), "/icons/mariadb.svg");
  await expectLoadedIcon(card(page, /OpenAI-compatible API/), "/icons/openai.svg");
  await expectLoadedIcon(card(page, /HTTP model/), "/icons/http-model.svg");
  await shot(page, "connector-gallery-sources");

  // Category chips: AI / ML models only, then back to all.
  const chips = page.getByRole("group", { name: "Filter by category" });
  await chips.getByRole("button", { name: "AI Model" }).click();
  await expect(chips.getByRole("button", { name: "AI Model" })).toHaveAttribute("aria-pressed", "true");
  await expect(card(page, /OpenAI-compatible API/)).toBeVisible();
  await expect(card(page, /HTTP model/)).toBeVisible();
  await expect(card(page, /PostgreSQL/)).toHaveCount(0);
  await chips.getByRole("button", { name: "All" }).click();
  await expect(card(page, /PostgreSQL/)).toBeVisible();

  // Search: by title, ignoring case; with a chip, both apply; nothing found offers a way back.
  const search = page.getByRole("searchbox", { name: "Search connectors" });
  await search.fill("maria");
  await expect(page.getByRole("list", { name: "Connectors" }).getByRole("button")).toHaveCount(1);
  await expect(card(page, /MariaDB/)).toBeVisible();
  await search.fill("embeddings openai");
  await expect(card(page, /OpenAI-compatible API/)).toHaveCount(0);
  await expect(page.getByText("No connector matches")).toBeVisible();
  await page.getByRole("button", { name: "Show all connectors" }).click();
  await expect(search).toHaveValue("");
  await expect(card(page, /PostgreSQL/)).toBeVisible();

  // A card still opens its configuration form, with its icon.
  await search.fill("openai");
  await card(page, /OpenAI-compatible API/).click();
  await expect(page.getByRole("heading", { name: "OpenAI-compatible API" })).toBeVisible();
  await expect(page.getByLabel("Base URL")).toBeVisible();
  await expect(page.locator('img[data-icon="OpenAI"]')).toHaveAttribute("src", "/icons/openai.svg");

  // Destinations: Slack's icon did not load, so its card shows the generic icon instead.
  await page.goto(url("/destinations/new"));
  await expect(card(page, /Slack/)).toBeVisible({ timeout: 60_000 });
  await expect(card(page, /Slack/).locator("[data-generic-icon]")).toBeVisible();
  await expect(card(page, /Slack/).locator("img")).toHaveCount(0);
  await expectLoadedIcon(card(page, /HTTP/).first(), "/icons/http.svg");
  // Destinations are filed under the reference's categories: CRM holds HubSpot and Salesforce.
  const destinationChips = page.getByRole("group", { name: "Filter by category" });
  for (const name of ["CRM", "Marketing Automation", "Productivity Tools", "Database", "Team Collaboration"]) {
    await expect(destinationChips.getByRole("button", { name, exact: true })).toBeVisible();
  }
  await destinationChips.getByRole("button", { name: "CRM", exact: true }).click();
  await expect(card(page, /HubSpot/)).toBeVisible();
  await expect(card(page, /Salesforce/)).toBeVisible();
  await expect(card(page, /Slack/)).toHaveCount(0);
  await destinationChips.getByRole("button", { name: "All" }).click();
  await shot(page, "connector-gallery-destinations");
});
