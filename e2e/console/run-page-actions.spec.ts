// Issue 35, point 1 (the run page's actions), in Chromium at 1280×800 and 1440×900:
// - a running run is canceled from its own page; the sync page's runs and the dashboard's recent
//   runs follow without a reload (the run is held mid-way by a destination this test runs, not a sleep);
// - a run held for approval shows sample keys and rows of what it would delete, as the Plan dialog
//   does; canceled from there, it leaves the dashboard's "Syncs that need attention" at once; a
//   Viewer sees the samples and why they cannot approve or cancel;
// - "Retry failed records" opens the new run, and is no longer offered once that run delivered them.
import { randomBytes } from "node:crypto";
import { ADMIN, adminApi, type Api } from "../support/api";
import { sql } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { acceptInvitation } from "../support/mailbox";
import { actorName, guardedSync, largeSourceSync, rejectingSync, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";
import { atEachViewport, attachShot, expect, nav, signIn, test, url } from "./fixtures";

let api: Api;
let who: string;
let destination: HoldingDestination;
const viewer = { email: `run-viewer-${randomBytes(4).toString("hex")}@example.com`, password: "viewer-password-1" };
const tables: string[] = [];
const syncs: number[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  // The admin's default workspace: the one the console opens; the Viewer joins it.
  api = await adminApi(request);
  who = await actorName(api);
  destination = await holdingDestination();
  const me = (await (await api.get("/api/v1/users/me")).json()).data;
  const roles = (await (await api.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
  const res = await api.post(`/api/v1/workspaces/${me.attributes.workspace_id}/members`, {
    member: { email: viewer.email, name: "Rita Viewer", role_id: Number(roles.find((r) => r.attributes.role_name === "Viewer")!.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  await acceptInvitation(request, viewer.email, viewer.password);
});

test.afterAll(async () => {
  destination?.release();
  await destination?.close();
  for (const id of syncs) await api.delete(`/api/v1/syncs/${id}`);
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

atEachViewport((viewport) => {
  test("Cancel on the run page stops a running run; the sync page and the dashboard follow without a reload", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(240_000);
    void consoleErrors; // the fixture fails the test on a browser console error
    const big = await largeSourceSync(api, destination.url, 4_000);
    tables.push(big.table);
    syncs.push(big.syncId);
    const name = String((await syncAttributes(api, big.syncId)).name);

    // The run's last quarter of rows is held by the destination: it stays running until canceled.
    destination.hold();
    const runId = await trigger(api, big.syncId);
    await expect.poll(() => destination.held(), { timeout: 90_000 }).toBeGreaterThan(0);

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${big.syncId}`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
    const runs = page.getByRole("table", { name: "Runs" });
    await runs.getByRole("link", { name: `#${runId}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: new RegExp(`Run #${runId}`) })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole("progressbar", { name: "Run progress" })).toBeVisible();
    await attachShot(page, testInfo, "1-running-run-page");

    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("dialog", { name: `Cancel run #${runId}?` }).getByRole("button", { name: "Cancel run" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`canceled by ${who}`, { timeout: 60_000 });
    await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    await attachShot(page, testInfo, "2-canceled-run-page");

    // Back on the sync page and the dashboard (client-side, no reload): the run reads canceled there too.
    await page.getByRole("link", { name: `Sync ${big.syncId}` }).click();
    await expect(runs.locator("tbody tr").first()).toContainText(`canceled by ${who}`);
    await expect(page.getByTestId("sync-header-last-run")).toContainText(`canceled by ${who}`);
    await nav(page, "Dashboard");
    const recent = page.locator("li").filter({ has: page.getByRole("link", { name, exact: true }) });
    await expect(recent.first()).toContainText("canceled");
    await attachShot(page, testInfo, "3-dashboard-after-cancel");
    destination.release();
  });

  test("a held run shows sample keys and rows of what it would delete; canceled there, it leaves the syncs that need attention", async ({ page, browser, consoleErrors }, testInfo) => {
    test.setTimeout(240_000);
    const { syncId, src, dst } = await guardedSync(api, 20);
    tables.push(src, dst);
    syncs.push(syncId);
    expect(await waitForRun(api, syncId, await trigger(api, syncId))).toMatchObject({ status: "success" });
    await sql(`DELETE FROM ${src} WHERE id > 2`);
    const runId = await trigger(api, syncId);
    await waitForRun(api, syncId, runId, (a) => a.status === "needs_approval");
    const name = String((await syncAttributes(api, syncId)).name);

    // A Viewer (in a browser of their own) reads what it would delete, and why they can neither approve nor cancel it.
    const viewerContext = await browser.newContext({ viewport });
    const viewerPage = await viewerContext.newPage();
    viewerPage.on("console", (msg) => {
      if (msg.type() === "error") consoleErrors.push(`console.error on ${viewerPage.url()}: ${msg.text()}`);
    });
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(url(`/syncs/${syncId}/runs/${runId}`));
    await expect(viewerPage.getByTestId("held-plan").getByRole("region", { name: "Delete samples" })).toContainText("Delete: 5 of 18", { timeout: 60_000 });
    await expect(viewerPage.getByRole("alert", { name: "Needs approval" })).toContainText("may view runs but not start, cancel or approve them");
    await expect(viewerPage.getByRole("button", { name: "Approve run" })).toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    await attachShot(viewerPage, testInfo, "4-held-run-viewer");
    await viewerContext.close();

    // The admin meets it on the dashboard, opens it, reads its samples and cancels it there.
    await signIn(page, ADMIN.email, ADMIN.password);
    const attention = page.getByRole("heading", { name: "Syncs that need attention" }).locator("xpath=ancestor::*[contains(@class,'rounded')][1]");
    await expect(attention.getByRole("link", { name, exact: true })).toBeVisible({ timeout: 60_000 });
    await attention.getByRole("link", { name, exact: true }).click();
    await page.getByRole("link", { name: `Review run #${runId}` }).click();
    const deletes = page.getByTestId("held-plan").getByRole("region", { name: "Delete samples" });
    await expect(deletes).toContainText("Delete: 5 of 18", { timeout: 60_000 });
    await deletes.locator("summary").first().click();
    await expect(deletes.locator("summary").first()).toContainText(/key \d+/);
    await expect(deletes.locator("pre").first()).toContainText('"id"');
    await attachShot(page, testInfo, "5-held-run-samples");

    const approval = page.getByRole("alert", { name: "Needs approval" });
    await approval.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("dialog", { name: `Cancel run #${runId}?` }).getByRole("button", { name: "Cancel run" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`canceled by ${who}`, { timeout: 60_000 });
    await nav(page, "Dashboard");
    await expect(attention.getByRole("link", { name, exact: true })).toHaveCount(0);
    await attachShot(page, testInfo, "6-dashboard-after-held-cancel");
  });

  test("Retry failed records opens the new run, and is no longer offered once it delivered them", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(240_000);
    void consoleErrors;
    const refusing = await rejectingSync(api, 20, 3);
    tables.push(...refusing.tables);
    syncs.push(refusing.syncId);
    const first = await trigger(api, refusing.syncId);
    expect(await waitForRun(api, refusing.syncId, first)).toMatchObject({ status: "success", failed_rows: 3 });

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${refusing.syncId}/runs/${first}`));
    const retry = page.getByRole("button", { name: "Retry 3 failed records" });
    await expect(retry).toBeVisible({ timeout: 60_000 });
    await attachShot(page, testInfo, "7-retry-offered");

    // The rows are fixed at the source; the retry delivers them.
    await sql(`UPDATE ${refusing.tables[0]} SET email = 'u' || id || '@example.com' WHERE email IS NULL`);
    await retry.click();
    await expect(page).toHaveURL(new RegExp(`/syncs/${refusing.syncId}/runs/(?!${first}$)\\d+$`), { timeout: 60_000 });
    const retried = page.url().split("/").pop()!;
    await expect(page.getByRole("heading", { level: 1, name: new RegExp(`Run #${retried}`) })).toContainText("succeeded", { timeout: 90_000 });
    await expect(page.getByRole("button", { name: /Retry .*failed/ })).toHaveCount(0);
    await attachShot(page, testInfo, "8-retry-run");

    // Back on the first run: its failed records were delivered, so no retry is offered any more.
    await page.goBack();
    await expect(page.getByRole("heading", { level: 1, name: new RegExp(`Run #${first}`) })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText("Failed", { exact: true }).first()).toBeVisible();
    await expect(page.getByRole("button", { name: /Retry .*failed/ })).toHaveCount(0);
    await attachShot(page, testInfo, "9-retry-no-longer-offered");
  });
});
