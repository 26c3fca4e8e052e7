// Issue 15 in Chromium at 1280×800 and 1440×900: the sync page's Plan shows what a run would do
// (counts, the limit it would break, sample rows with their payloads) without writing; Run now then
// stops before its first write (needs approval, with the numbers); the person approves it on the
// run's page and the run succeeds, approved by them. Screenshots of each state are attached.
import { ADMIN, adminApi, type Api } from "../support/api";
import { sql, sqlRows } from "../support/data";
import { actorName, guardedSync, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";
import { attachShot, expect, signIn, test, url } from "./fixtures";

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
];

let api: Api;
let who: string;
const tables: string[] = [];
const syncs: number[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  api = await adminApi(request);
  who = await actorName(api);
});

test.afterAll(async () => {
  for (const id of syncs) await api.delete(`/api/v1/syncs/${id}`);
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

const rowsIn = async (table: string) => Number((await sqlRows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("plan → the guard holds the run → approve → the run succeeds", async ({ page, consoleErrors }, testInfo) => {
      test.setTimeout(180_000);
      void consoleErrors; // the fixture fails the test on a browser console error
      // A sync with delete detection (its limits' defaults in force) that delivered 20 rows; 18 then leave the model.
      const { syncId, src, dst } = await guardedSync(api, 20);
      tables.push(src, dst);
      syncs.push(syncId);
      expect(await waitForRun(api, syncId, await trigger(api, syncId))).toMatchObject({ status: "success" });
      await sql(`DELETE FROM ${src} WHERE id > 2`);
      const name = String((await syncAttributes(api, syncId)).name);

      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url(`/syncs/${syncId}`));
      await expect(page.getByRole("heading", { level: 1 })).toContainText(name);

      // Plan: counts, the limit a run would break, sample rows with their payloads. Nothing written.
      await page.getByRole("button", { name: "Plan", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Plan of the next run" });
      await expect(dialog.locator("[data-plan-count=delete]")).toHaveText("18");
      await expect(dialog.locator("[data-plan-count=insert]")).toHaveText("0");
      await expect(dialog.getByRole("alert")).toContainText("would delete 18 of 20 tracked rows (90%), over the 20% limit");
      const deletes = dialog.getByRole("region", { name: "Delete samples" });
      await expect(deletes).toContainText("Delete: 5 of 18");
      await deletes.locator("summary").first().click();
      await expect(deletes.locator("pre").first()).toContainText('"id"');
      await attachShot(page, testInfo, "1-plan");
      expect(await rowsIn(dst)).toBe(20);

      // Run now from the plan: the run stops before its first write and says why.
      await dialog.getByRole("button", { name: "Run now" }).click();
      await expect(dialog).toBeHidden();
      const banner = page.getByRole("alert").filter({ hasText: "stopped before writing anything" });
      await expect(banner).toBeVisible({ timeout: 60_000 });
      await attachShot(page, testInfo, "2-sync-held");
      await banner.getByRole("link", { name: /Review run/ }).click();
      const approval = page.getByRole("alert", { name: "Needs approval" });
      await expect(approval.getByTestId("approval-reasons")).toContainText("It would delete 18 of 20 tracked rows (90%), over the 20% limit.");
      await expect(page.getByRole("heading", { level: 1 })).toContainText("needs approval");
      expect(await rowsIn(dst)).toBe(20);
      await attachShot(page, testInfo, "3-run-needs-approval");

      // Approve: it runs as planned.
      await approval.getByRole("button", { name: "Approve run" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Approve and run" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText("succeeded", { timeout: 60_000 });
      await expect(page.getByText(`Approved by ${who}: it ran within the approved plan.`)).toBeVisible();
      await expect(page.locator("[data-plan-count=delete]")).toHaveText("18");
      expect(await rowsIn(dst)).toBe(2);
      await attachShot(page, testInfo, "4-run-approved");

      // The limits in the sync's settings: an emptied percentage turns its limit off.
      await page.goto(url(`/syncs/${syncId}/settings`));
      const limits = page.getByRole("region", { name: "Limits" });
      await expect(limits).toContainText("Deletes at most 20%, changes no limit, empty extract refused (defaults)");
      await page.getByRole("button", { name: "Edit limits" }).click();
      await expect(page.getByLabel("Most deletes (%)")).toHaveValue("20");
      await page.getByLabel("Most deletes (%)").fill("");
      await page.getByLabel("Most changes (%)").fill("50");
      await page.getByRole("button", { name: "Save limits" }).click();
      await expect(limits).toContainText("Deletes no limit, changes at most 50%, empty extract refused");
      expect((await syncAttributes(api, syncId)).guard).toEqual({ max_delete_percent: null, max_change_percent: 50, max_change_rows: null, refuse_empty_extract: true });
    });
  });
}
