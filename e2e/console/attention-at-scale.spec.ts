// Issue 35, point 1 at scale, in Chromium at 1280×800 and 1440×900: the dashboard's "Need attention"
// and its list judge every sync of the workspace, not the first page of them. In a workspace of its
// own, 12 syncs fail for real (their destination table is dropped before they run), then 108 more are
// created, so the failing ones are not among the 100 most recently changed: the dashboard still counts
// 12, lists 10 with a link to all of them, shows their runs as the recent ones, and the syncs list
// filters to exactly those 12.
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { memberWithRole, newWorkspace, type TestMember } from "../support/api";
import { sql, unique } from "../support/data";
import { pgToPgRoute, trigger, waitForRun } from "../support/run-scenarios";
import { atEachViewport, attachShot, expect, nav, signIn, test, url } from "./fixtures";

const FAILING = 12;
const FINE = 108;

let context: APIRequestContext;
let member: TestMember;
const tables: string[] = [];
const failing = new Set<string>();

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  context = await playwrightRequest.newContext({ baseURL: test.info().project.use.baseURL });
  const ws = await newWorkspace(context, `attention at scale ${Date.now()}`);
  member = await memberWithRole(context, ws, "Admin");
  const api = member.api;

  const src = unique("e2e_attention_src");
  const dst = unique("e2e_attention_dst");
  tables.push(src, dst);
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} VALUES (1, 'a@example.com'), (2, 'b@example.com')`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text)`);
  const route = await pgToPgRoute(api, src, dst);
  const sync = (name: string) => route.sync({ name });

  const failingIds: number[] = [];
  for (let i = 0; i < FAILING; i++) {
    const name = `failing ${String(i).padStart(2, "0")} ${unique("s")}`;
    failingIds.push(await sync(name));
    failing.add(name);
  }
  // Their destination table goes away: each run fails for real, and each sync is then "failed".
  await sql(`DROP TABLE ${dst}`);
  const runs = await Promise.all(failingIds.map(async (id) => [id, await trigger(api, id)] as const));
  for (const [id, run] of runs) expect((await waitForRun(api, id, run)).status).toBe("failed");
  // Created after the failures, these fill the 100 most recently changed syncs. They never run.
  for (let i = 0; i < FINE; i++) await sync(`fine ${String(i).padStart(3, "0")} ${unique("s")}`);
});

test.afterAll(async () => {
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
  await context?.dispose();
});

atEachViewport(() => {
  test("the dashboard counts and lists every sync that needs attention, and links to all of them", async ({ page }, testInfo) => {
    await signIn(page, member.email, member.password);
    await expect(page.locator("dt", { hasText: /^Syncs$/ }).locator("xpath=following-sibling::dd")).toHaveText(String(FAILING + FINE));
    const count = page.locator("dt", { hasText: "Need attention" }).locator("xpath=following-sibling::dd");
    await expect(count).toHaveText(String(FAILING), { timeout: 30_000 });

    const card = page.locator("div.rounded-lg").filter({ has: page.getByRole("heading", { name: "Syncs that need attention" }) });
    const items = card.getByRole("listitem");
    await expect(items).toHaveCount(10);
    for (const name of await items.getByRole("link").allTextContents()) expect(failing.has(name), `${name} is one of the failing syncs`).toBe(true);
    await expect(items.getByTestId("sync-badge")).toHaveText(Array(10).fill("failed"));
    // Recent runs: the workspace's latest runs (the failing syncs' runs), not "No runs yet" because
    // the 100 most recently changed syncs never ran.
    const recent = page.locator("div.rounded-lg").filter({ has: page.getByRole("heading", { name: "Recent runs" }) });
    await expect(recent.getByRole("listitem")).toHaveCount(8);
    for (const name of await recent.getByRole("listitem").getByRole("link").allTextContents()) expect(failing.has(name), `${name} ran`).toBe(true);
    await attachShot(page, testInfo, "dashboard-attention");

    await card.getByRole("link", { name: `All ${FAILING} syncs that need attention` }).click();
    await page.waitForURL(/\/syncs\?needs_attention=true$/);
    await expect(page.getByRole("group", { name: "Which syncs" }).getByRole("button", { name: "Need attention" })).toHaveAttribute("aria-pressed", "true");
    const rows = page.getByRole("table", { name: "Syncs" }).locator("tbody tr");
    await expect(rows).toHaveCount(FAILING);
    const names = await rows.locator("td:first-child a").allTextContents();
    expect(new Set(names)).toEqual(failing);
    await expect(page.getByText(`${FAILING} total`)).toBeVisible();
    await attachShot(page, testInfo, "syncs-need-attention");

    // Back to every sync: the whole workspace, page by page.
    await page.getByRole("group", { name: "Which syncs" }).getByRole("button", { name: "All syncs" }).click();
    await page.waitForURL(/\/syncs$/);
    await expect(page.getByText(`${FAILING + FINE} total`)).toBeVisible();
    await expect(rows).toHaveCount(20);

    // The stat is a link to the same filtered list.
    await page.goto(url("/dashboard"));
    await count.getByRole("link").click();
    await page.waitForURL(/\/syncs\?needs_attention=true$/);
    await expect(rows).toHaveCount(FAILING);
    // The sidebar's "Syncs" is every sync again: the address decides, not what was picked before.
    await nav(page, "Syncs");
    await page.waitForURL(/\/syncs$/);
    await expect(page.getByRole("group", { name: "Which syncs" }).getByRole("button", { name: "All syncs" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByText(`${FAILING + FINE} total`)).toBeVisible();
  });
});
