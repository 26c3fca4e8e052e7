// Sequences on a sync's page (docs/orchestration.md, section 4): B is set to run after A through
// the "Runs after" form; setting A after B is refused with the API's cycle message; "Run with the
// syncs after it" on A starts the sequence and its progress shows both steps ending in success.
import { request as playwrightRequest } from "@playwright/test";
import { ADMIN, BASE_URL, roleIds, uniqueSuffix } from "../support/api";
import { unique } from "../support/data";
import { acceptInvitation } from "../support/mailbox";
import { attachShot, expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";

const world = new PgScenario("sequences_e2e");
const nameA = unique("seq-a");
const nameB = unique("seq-b");
let syncA: string;
let syncB: string;
const viewer = { email: `seq-viewer-${uniqueSuffix()}@example.com`, password: `pw-${uniqueSuffix()}-long` };

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const { schema } = world;
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com'), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL);
    CREATE TABLE ${schema}.contacts_copy (id integer PRIMARY KEY, email text NOT NULL);
  `);
  const sourceId = await world.connector("source", unique("seq-source"));
  const destinationId = await world.connector("destination", unique("seq-destination"));
  expect((await world.api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await world.model(unique("seq-model"), sourceId, `SELECT * FROM ${schema}.people`);
  const sync = async (name: string, stream: string) => {
    const body = (await world.post(
      "/api/v1/syncs",
      {
        sync: {
          name,
          source_id: sourceId,
          destination_id: destinationId,
          model_id: modelId,
          schedule_type: "manual",
          sync_mode: "full_refresh",
          stream_name: stream,
          configuration: [
            { from: "id", to: "id", mapping_type: "standard" },
            { from: "email", to: "email", mapping_type: "standard" },
          ],
        },
      },
      200,
    )) as unknown as { id: string };
    world.track(`/api/v1/syncs/${body.id}`);
    return String(body.id);
  };
  syncA = await sync(nameA, "contacts");
  syncB = await sync(nameB, "contacts_copy");
  // A Viewer of the admin's workspace (the one the console opens for both).
  const me = await world.attributes<{ workspace_id: number }>("/api/v1/users/me");
  const res = await world.api.post(`/api/v1/workspaces/${me.workspace_id}/members`, {
    member: { email: viewer.email, name: "Sequence Viewer", role_id: (await roleIds(world.api)).Viewer },
  });
  expect(res.status(), await res.text()).toBe(201);
  const context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  await acceptInvitation(context, viewer.email, viewer.password);
  await context.dispose();
});

test.afterAll(() => world.close());

test("B runs after A, B before A is refused as a cycle, and A's sequence runs both to success", async ({ page, consoleErrors }, testInfo) => {
  // It waits for several runs: on a loaded machine (a whole run of the suite) that passed 60 s.
  test.setTimeout(180_000);
  await signIn(page, ADMIN.email, ADMIN.password);

  // A has nothing after it yet: no sequence action.
  await page.goto(url(`/syncs/${syncA}`));
  const sequenceCard = page.getByRole("region", { name: "Sequence" });
  await expect(sequenceCard.getByTestId("run-before")).toContainText("None.");
  await expect(page.getByRole("button", { name: "Run with the syncs after it" })).toHaveCount(0);

  // On B: run after A.
  await page.goto(url(`/syncs/${syncB}`));
  await sequenceCard.getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: "Runs after" });
  await expect(form.getByLabel(nameB, { exact: true })).toHaveCount(0); // not after itself
  await form.getByLabel(nameA, { exact: true }).check();
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  await expect(sequenceCard.getByTestId("run-after").getByRole("link", { name: nameA })).toBeVisible();
  expect((await world.attributes<{ sync_ids: number[] }>(`/api/v1/syncs/${syncB}/run_after`)).sync_ids).toEqual([Number(syncA)]);

  // On A: B is after it; A after B would close a cycle, and the API's words say so.
  await sequenceCard.getByTestId("run-after").getByRole("link", { name: nameA }).click();
  await expect(page).toHaveURL(new RegExp(`/syncs/${syncA}$`));
  await expect(sequenceCard.getByTestId("run-before").getByRole("link", { name: nameB })).toBeVisible();
  await sequenceCard.getByRole("button", { name: "Edit" }).click();
  await form.getByLabel(nameB, { exact: true }).check();
  await form.getByRole("button", { name: "Save" }).click();
  const refusal = form.getByRole("alert");
  await expect(refusal).toContainText("would make a cycle");
  await expect(refusal).toContainText(nameA);
  await expect(refusal).toContainText(nameB);
  // The browser logs that refused request's 422; it is the one console error this page may show.
  await expect.poll(() => consoleErrors.findIndex((e) => e.includes("status of 422"))).toBeGreaterThanOrEqual(0);
  consoleErrors.splice(consoleErrors.findIndex((e) => e.includes("status of 422")), 1);
  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(sequenceCard.getByTestId("run-after")).toContainText("No other sync");

  // Run A with the syncs after it: both steps end in success.
  await page.getByRole("button", { name: "Run with the syncs after it" }).click();
  const progress = page.getByRole("region", { name: "Sequence run" });
  const stepA = progress.getByTestId(`sequence-step-${syncA}`);
  const stepB = progress.getByTestId(`sequence-step-${syncB}`);
  await expect(stepA).toContainText(nameA);
  await expect(stepB).toContainText(nameB);
  await expect(stepA).toContainText("success", { timeout: 60_000 });
  await expect(stepB).toContainText("success", { timeout: 60_000 });
  await expect(progress.getByRole("heading")).toContainText("success");
  await expect(progress.getByRole("button", { name: "Dismiss" })).toBeVisible();
  await attachShot(page, testInfo, "sequence-run");
});

test("a Viewer sees what B runs after, read-only, and cannot start A's sequence", async ({ page, consoleErrors }) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, viewer.email, viewer.password);
  await page.goto(url(`/syncs/${syncB}`));
  const sequenceCard = page.getByRole("region", { name: "Sequence" });
  await expect(sequenceCard.getByTestId("run-after").getByRole("link", { name: nameA })).toBeVisible();
  await expect(sequenceCard.getByRole("button", { name: "Edit" })).toHaveCount(0);
  await page.goto(url(`/syncs/${syncA}`));
  await expect(sequenceCard.getByTestId("run-before").getByRole("link", { name: nameB })).toBeVisible();
  await expect(page.getByRole("button", { name: "Run with the syncs after it" })).toHaveCount(0);
});
