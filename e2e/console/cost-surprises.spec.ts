// Issue 35, point 2 ("No cost surprises") in Chromium at 1280×800 and 1440×900: on a sync that
// delivered its rows, changing one null policy and pressing "Save mapping" first shows what the next
// run will send (every delivered row as an update) and saves nothing; "Back to editing" keeps the
// edit unsaved, and only the dialog's "Save mapping" saves it. Screenshots of the plan are attached.
import { ADMIN, adminApi, type Api } from "../support/api";
import { sql } from "../support/data";
import { guardedSync, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";

let api: Api;
const tables: string[] = [];
const syncs: number[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  api = await adminApi(request);
});

test.afterAll(async () => {
  for (const id of syncs) await api.delete(`/api/v1/syncs/${id}`);
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

type Mapping = { to: string; null_policy?: string };
const emailPolicy = async (syncId: number) =>
  ((await syncAttributes(api, syncId)).configuration as Mapping[]).find((m) => m.to === "email")?.null_policy ?? "write";

atEachViewport(() => {
  test("changing a null policy shows the plan (every delivered row updated) before it is saved", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(180_000);
    void consoleErrors; // the fixture fails the test on a browser console error
    const { syncId, src, dst } = await guardedSync(api, 30);
    tables.push(src, dst);
    syncs.push(syncId);
    expect(await waitForRun(api, syncId, await trigger(api, syncId))).toMatchObject({ status: "success" });

    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${syncId}/settings`));
    await expect(page.getByRole("heading", { level: 1, name: "Sync settings" })).toBeVisible({ timeout: 60_000 });
    const mapping = page.getByRole("region", { name: "Mapping" });
    await mapping.getByRole("button", { name: "Edit mapping" }).click();
    await mapping.getByLabel("Mapping 2 if empty").selectOption("skip");
    await mapping.getByRole("button", { name: "Save mapping" }).click();

    // The plan of the edit, before anything is saved: all 30 delivered rows would be re-sent.
    const dialog = page.getByRole("dialog", { name: "Before you save the mapping" });
    await expect(dialog.locator("[data-plan-count=update]")).toHaveText("30", { timeout: 60_000 });
    await expect(dialog.locator("[data-plan-count=insert]")).toHaveText("0");
    await expect(dialog.getByTestId("save-plan-summary")).toHaveText("The next run will update 30 of the 30 rows this sync delivered.");
    await expect(dialog.getByRole("region", { name: "Update samples" })).toContainText("Update: 5 of 30");
    await attachShot(page, testInfo, "cost-plan-before-save");
    expect(await emailPolicy(syncId)).toBe("write");

    // Back to editing: still unsaved, the edit kept.
    await dialog.getByRole("button", { name: "Back to editing" }).click();
    await expect(dialog).toBeHidden();
    await expect(mapping.getByLabel("Mapping 2 if empty")).toHaveValue("skip");
    expect(await emailPolicy(syncId)).toBe("write");

    // Confirmed: saved.
    await mapping.getByRole("button", { name: "Save mapping" }).click();
    await expect(dialog.locator("[data-plan-count=update]")).toHaveText("30", { timeout: 60_000 });
    await dialog.getByRole("button", { name: "Save mapping" }).click();
    await expect(dialog).toBeHidden();
    await expect(mapping.getByRole("button", { name: "Edit mapping" })).toBeVisible();
    await expect.poll(() => emailPolicy(syncId)).toBe("skip");
  });
});
