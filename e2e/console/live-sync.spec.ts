// A live sync in the console (docs/live-syncs.md), at 1280×800 and 1440×900: its page shows the
// stream's state, lag and throughput as the server's worker backfills and streams a wal_level=logical
// PostgreSQL (an embedded one started here: the shared server runs wal_level=replica), the rolling
// runs in the runs table; disabled, the stream shows stopped; the form's Live box turns it off and on.
import type { Page } from "@playwright/test";
import { ADMIN } from "../support/api";
import { unique } from "../support/data";
import { LogicalPostgres } from "../support/logical-postgres";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";

const world = new PgScenario("live_e2e");
let source: LogicalPostgres | undefined;
let syncId = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  source = await LogicalPostgres.start();
  await source.exec("CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL); INSERT INTO people SELECT g, 'Person ' || g FROM generate_series(1, 40) g");
  await world.open(`CREATE TABLE ${world.schema}.people_out (id integer PRIMARY KEY, name text NOT NULL);`);
  const sourceId = await world.connector("source", unique("live-source"), "Postgresql", source.configuration());
  const destinationId = await world.connector("destination", unique("live-destination"));
  const discovered = await world.api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const modelId = await world.model(unique("live-model"), sourceId, "SELECT id, name FROM people");
  const created = await world.api.post("/api/v1/syncs", {
    sync: {
      name: unique("live-sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      stream_name: "people_out",
      sync_mode: "incremental",
      schedule_type: "manual",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "name", to: "name", mapping_type: "standard" },
      ],
      live: true,
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  syncId = (await created.json()).data.id;
  world.track(`/api/v1/syncs/${syncId}`);
});

test.afterAll(async () => {
  // The sync first: deleting it drops its slot on the source, which then stops.
  await world.close();
  await source?.stop();
});

atEachViewport((viewport) => {
  test(`the sync page shows the stream streaming, its lag and throughput, and the rolling runs (${viewport.width}px)`, async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors; // the fixture fails the test on a browser console error
    test.setTimeout(240_000);
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/${syncId}`));
    const card = page.getByTestId("live-card");
    // The server's worker backfills, then streams (the card polls every 5 s).
    await expect(card.getByText("streaming", { exact: true })).toBeVisible({ timeout: 180_000 });
    await source?.exec(`INSERT INTO people VALUES (${viewport.width}, 'Inserted at ${viewport.width}'); UPDATE people SET name = 'Renamed' WHERE id = 1`);
    await expect(card.getByTestId("live-throughput")).toHaveText(/^[\d.,]+ changes\/s$/, { timeout: 60_000 });
    await expect(card.getByTestId("live-lag-seconds")).not.toHaveText("—");
    await expect(card.getByTestId("live-lag-bytes")).toHaveText(/^[\d.]+ (B|KB|MB)$/);
    await expect(card).toContainText(`datasync_live_${syncId}`);
    // The schedule card says how it runs; the rolling run is an ordinary run in the table.
    await expect(page.getByText("Live: rolling runs, one after another")).toBeVisible();
    await expect(page.getByRole("table").getByRole("row")).not.toHaveCount(1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);
    await attachShot(page, testInfo, "live-sync");
  });
});

/** Saves the Mode section through the plan shown before a save (what the next run would send). */
async function saveMode(page: Page): Promise<void> {
  await page.getByRole("region", { name: "Mode" }).getByRole("button", { name: "Save mode" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Save mode" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
}

test("disabled, the stream shows stopped; the form's Live box turns it off and on again", async ({ page, consoleErrors }) => {
  void consoleErrors;
  test.setTimeout(180_000);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/syncs/${syncId}`));
  await page.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByTestId("live-card").getByText("stopped", { exact: true })).toBeVisible({ timeout: 60_000 });

  await page.goto(url(`/syncs/${syncId}/settings`));
  const mode = page.getByRole("region", { name: "Mode" });
  await expect(mode).toContainText(/detect deletes (on|off), live/);
  await mode.getByRole("button", { name: "Edit mode" }).click();
  const box = mode.getByRole("checkbox", { name: /^Live/ });
  await expect(box).toBeChecked();
  await box.uncheck();
  await saveMode(page);
  // Saved and closed: the summary is back, without live.
  await expect(mode.getByRole("button", { name: "Edit mode" })).toBeVisible({ timeout: 30_000 });
  await expect(mode).toContainText(/detect deletes (on|off)/);
  await expect(mode).not.toContainText(", live");
  // On again: the server asks the source (wal_level=logical, one table) and takes it.
  await mode.getByRole("button", { name: "Edit mode" }).click();
  await mode.getByRole("checkbox", { name: /^Live/ }).check();
  await saveMode(page);
  await expect(mode).toContainText(/detect deletes (on|off), live/, { timeout: 30_000 });
});
