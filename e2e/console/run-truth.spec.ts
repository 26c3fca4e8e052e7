// Issue 35, point 1 ("Truth at every level") in Chromium at 1280×800 and 1440×900. In a workspace of
// its own, four kinds of run a newcomer meets:
//   A. a 150,000-row PostgreSQL sync whose next run the guard holds, canceled before anyone approved it;
//   B. a sync whose destination refuses 3 of 20 rows (a success with rejected rows), then a failed test run;
//   C. a run canceled mid-way, after it wrote rows.
// The run's page, its sync's badge and "last run" (list, header, schedule card), the runs table and the
// dashboard say the same words (runTruth); cancels and tests are no failures; the Rows chart's y-axis
// labels are compact ("160k") and inside the chart at both widths.
import { request as playwrightRequest, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { Api, memberWithRole, newWorkspace, type TestMember } from "../support/api";
import { sql } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { actorName, guardedSync, largeSourceSync, rejectingSync, runAttributes, trigger, waitForRun } from "../support/run-scenarios";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";

interface Case {
  syncId: number;
  runId: string;
  name: string;
}

let context: APIRequestContext;
let member: TestMember;
let api: Api;
let who: string;
let destination: HoldingDestination;
const tables: string[] = [];
let held: Case; // A: held, then canceled
let rejected: Case & { testRunId: string; testText: string }; // B
let canceled: Case & { text: string }; // C

test.describe.configure({ mode: "serial" });

async function syncName(syncId: number): Promise<string> {
  const res = await api.get(`/api/v1/syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
  return String((await res.json()).attributes.name);
}

const cancel = async (syncId: number) => {
  const res = await api.delete(`/api/v1/schedule_syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
};

test.beforeAll(async () => {
  test.setTimeout(600_000);
  context = await playwrightRequest.newContext({ baseURL: test.info().project.use.baseURL });
  // A workspace of its own, signed into by an Admin who belongs to no other: the dashboard counts only these runs.
  const ws = await newWorkspace(context, `run truth ${Date.now()}`);
  member = await memberWithRole(context, ws, "Admin");
  api = member.api;
  who = await actorName(api);
  destination = await holdingDestination();

  // A. 150,000 rows delivered; then all but 2 leave the model: the guard holds the run; it is canceled.
  const a = await guardedSync(api, 150_000);
  tables.push(a.src, a.dst);
  const first = await trigger(api, a.syncId);
  // A large run on a loaded machine may outlast waitForRun's 90 s: wait as long as it takes (the test's timeout bounds it).
  await expect.poll(async () => (await runAttributes(api, a.syncId, first)).status, { timeout: 420_000, intervals: [1000] }).toBe("success");
  expect(await runAttributes(api, a.syncId, first)).toMatchObject({ status: "success", successful_rows: 150_000 });
  await sql(`DELETE FROM ${a.src} WHERE id > 2`);
  const aRun = await trigger(api, a.syncId);
  await waitForRun(api, a.syncId, aRun, (r) => r.status === "needs_approval");
  await cancel(a.syncId);
  // Nobody approved it: the API says so.
  expect(await waitForRun(api, a.syncId, aRun)).toMatchObject({ outcome: "canceled", canceled_by: who, approved_by: null, approved: false, held: true, successful_rows: 0 });
  held = { syncId: a.syncId, runId: aRun, name: await syncName(a.syncId) };

  // B. 3 of 20 rows refused; then a test of a refused row (it fails: a test, not a failure of the sync).
  const b = await rejectingSync(api, 20, 3);
  tables.push(...b.tables);
  const bRun = await trigger(api, b.syncId);
  expect(await waitForRun(api, b.syncId, bRun)).toMatchObject({ status: "success", outcome: "succeeded_with_rejections", failed_rows: 3 });
  const tested = await api.post(`/enterprise/api/v1/syncs/${b.syncId}/test`, { primary_key: "1" });
  expect(tested.status(), await tested.text()).toBe(200);
  const testRunId = String((await tested.json()).data.id);
  const testRun = await waitForRun(api, b.syncId, testRunId);
  expect(testRun).toMatchObject({ sync_run_type: "test" });
  // The refused row: the test fails, or succeeds with it rejected (either way a test, no failure of the sync).
  const testWords: Record<string, string> = { failed: "failed", succeeded_with_rejections: "succeeded with 1 rejected row", succeeded: "succeeded" };
  const testText = `${testWords[String(testRun.outcome)]} · test`;
  rejected = { syncId: b.syncId, runId: bRun, name: await syncName(b.syncId), testRunId, testText };

  // C. Canceled while its destination holds the last quarter of rows: the first batches were written.
  const c = await largeSourceSync(api, destination.url, 8_000);
  tables.push(c.table);
  destination.hold();
  const cRun = await trigger(api, c.syncId);
  await waitForRun(api, c.syncId, cRun, () => destination.held() > 0);
  await cancel(c.syncId);
  // Released only once the run ended: the cancel aborted the held request, so nothing more is written.
  const cEnded = await waitForRun(api, c.syncId, cRun);
  destination.release();
  expect(cEnded).toMatchObject({ status: "failed", outcome: "canceled", canceled_by: who });
  const written = Number(cEnded.successful_rows);
  const text = `canceled by ${who} · ${written > 0 ? `${written.toLocaleString("en-US")} row${written === 1 ? "" : "s"} written before the cancel` : "nothing written"}`;
  canceled = { syncId: c.syncId, runId: cRun, name: await syncName(c.syncId), text };
});

test.afterAll(async () => {
  destination?.release();
  await destination?.close();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
  await context?.dispose();
});

const HELD_TEXT = () => `canceled by ${who} · not approved · nothing written`;

/** The row of run `id` in a runs table. */
const runRow = (table: Locator, id: string) => table.getByRole("row").filter({ has: table.page().getByRole("link", { name: `#${id}`, exact: true }) });

/** The outcome badge's words inside `scope`. */
const outcome = (scope: Locator) => scope.getByTestId("run-outcome").first();

async function expectSyncPage(page: Page, c: Case, badge: string, lastRun: string) {
  await page.goto(url(`/syncs/${c.syncId}`));
  const heading = page.getByRole("heading", { level: 1 });
  await expect(heading).toContainText(c.name);
  await expect(heading.getByTestId("sync-badge")).toHaveText(badge);
  // The two "last run" indicators (header and schedule card) name the same run in the same words.
  await expect(outcome(page.getByTestId("sync-header-last-run"))).toHaveText(lastRun);
  await expect(outcome(page.getByTestId("sync-last-run"))).toHaveText(lastRun);
}

atEachViewport(() => {
  test("run page, sync badge and last run, runs table and dashboard say the same thing", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(240_000);
    void consoleErrors; // the fixture fails the test on a browser console error
    await signIn(page, member.email, member.password);

    // A. The held run's page: canceled by whom, never "approved", nothing written.
    await page.goto(url(`/syncs/${held.syncId}/runs/${held.runId}`));
    await expect(outcome(page.getByRole("heading", { level: 1 }))).toHaveText(HELD_TEXT());
    await expect(page.getByText(`Held for approval; nobody approved it. Canceled by ${who} before writing anything.`)).toBeVisible();
    await expect(page.getByText(/Approved/)).toHaveCount(0);
    expect((await runAttributes(api, held.syncId, held.runId)).approved_by).toBeNull();
    await attachShot(page, testInfo, "1-held-then-canceled-run");
    // Its sync: a cancel leaves it healthy; both last-run indicators and the runs table say the same.
    await expectSyncPage(page, held, "healthy", HELD_TEXT());
    const runsA = page.getByRole("table", { name: "Runs" });
    await expect(outcome(runRow(runsA, held.runId))).toHaveText(HELD_TEXT());

    // B. The rejected rows: the run, its row in the runs table, the sync's badge (needs attention, not healthy).
    await page.goto(url(`/syncs/${rejected.syncId}/runs/${rejected.runId}`));
    await expect(outcome(page.getByRole("heading", { level: 1 }))).toHaveText("succeeded with 3 rejected rows");
    await page.goto(url(`/syncs/${rejected.syncId}/runs/${rejected.testRunId}`));
    await expect(outcome(page.getByRole("heading", { level: 1 }))).toHaveText(rejected.testText);
    await expectSyncPage(page, rejected, "needs attention", rejected.testText);
    const runsB = page.getByRole("table", { name: "Runs" });
    await expect(outcome(runRow(runsB, rejected.runId))).toHaveText("succeeded with 3 rejected rows");
    await expect(outcome(runRow(runsB, rejected.testRunId))).toHaveText(rejected.testText);
    await attachShot(page, testInfo, "2-sync-with-rejected-rows");

    // C. A cancel mid-way says what it wrote (as the API counts it now).
    const written = Number((await runAttributes(api, canceled.syncId, canceled.runId)).successful_rows);
    canceled.text = `canceled by ${who} · ${written > 0 ? `${written.toLocaleString("en-US")} row${written === 1 ? "" : "s"} written before the cancel` : "nothing written"}`;
    await page.goto(url(`/syncs/${canceled.syncId}/runs/${canceled.runId}`));
    await expect(outcome(page.getByRole("heading", { level: 1 }))).toHaveText(canceled.text);
    // Its first run was the canceled one: a cancel leaves the sync as it was (pending), not failed.
    await expectSyncPage(page, canceled, "pending", canceled.text);

    // The syncs list: each sync's badge and last run, as on its page.
    await page.goto(url("/syncs"));
    const list = page.getByRole("table", { name: "Syncs" });
    for (const [c, badge, last] of [
      [held, "healthy", HELD_TEXT()],
      [rejected, "needs attention", rejected.testText],
      [canceled, "pending", canceled.text],
    ] as const) {
      const row = list.getByRole("row").filter({ hasText: c.name });
      await expect(row.getByTestId("sync-badge")).toHaveText(badge);
      await expect(outcome(row.getByTestId("sync-last-run"))).toHaveText(last);
    }
    await attachShot(page, testInfo, "3-syncs-list");

    // The dashboard: only B needs attention, with the same words; no cancel or test counted as a failure.
    await page.goto(url("/dashboard"));
    const attention = page.locator("div.rounded-lg").filter({ has: page.getByRole("heading", { name: "Syncs that need attention" }) });
    const items = attention.getByRole("listitem");
    await expect(items).toHaveCount(1);
    await expect(items.first()).toContainText(rejected.name);
    await expect(items.first().getByTestId("sync-badge")).toHaveText("needs attention");
    await expect(outcome(items.first())).toHaveText("succeeded with 3 rejected rows");
    await expect(page.locator("dl > div").filter({ hasText: "Need attention" }).locator("dd")).toHaveText("1");
    const runsChart = page.getByRole("img", { name: /^Runs: \d+ runs, 0 failed$/ });
    await expect(runsChart).toBeVisible();
    // 2 runs of A, 1 of B and its test, 1 of C: none failed.
    await expect(runsChart).toHaveAttribute("aria-label", "Runs: 5 runs, 0 failed");

    // The Rows chart's y-axis: compact labels, each wholly inside the chart.
    const rowsChart = page.getByRole("img", { name: /^Rows: / });
    const box = (await rowsChart.boundingBox())!;
    const ticks = rowsChart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
    await expect(ticks.first()).toBeVisible();
    const labels = await ticks.allTextContents();
    expect(labels.length).toBeGreaterThan(1);
    for (const label of labels) expect(label, "a compact axis label").toMatch(/^\d+(\.\d)?[kM]?$/);
    // The top label stands for at least the 150,000 rows of A's first run (six digits: "150000" was clipped).
    const value = (l: string) => parseFloat(l) * (l.endsWith("M") ? 1e6 : l.endsWith("k") ? 1e3 : 1);
    expect(Math.max(...labels.map(value))).toBeGreaterThanOrEqual(150_000);
    for (let i = 0; i < labels.length; i++) {
      const tick = (await ticks.nth(i).boundingBox())!;
      expect(tick.x, `label "${labels[i]}" starts inside the chart`).toBeGreaterThanOrEqual(box.x);
      expect(tick.x + tick.width, `label "${labels[i]}" ends inside the chart`).toBeLessThanOrEqual(box.x + box.width);
    }
    await attachShot(page, testInfo, "4-dashboard");
  });
});
