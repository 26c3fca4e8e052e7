// Issue 35, point 6 ("the rest of the list"), at 1280×800 and 1440×900: schedule and template
// messages in plain words on their own fields; the primary key marked with words, not an emoji; the
// only stream of a destination chosen already, and Refresh streams finding a table added since; toasts
// that leave the tables' Previous/Next free; no column heading or error text cut off; a sidebar whose
// entries each have an icon of their own.
import type { Locator, Page } from "@playwright/test";
import { ADMIN, Api } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { trigger, waitForRun } from "../support/run-scenarios";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";
import { wizardToMapping } from "./wizard";

const world = new PgScenario("small_fixes");
let sourceId: number;
let modelId: number;
let destinationId: number;

test.beforeAll(async () => {
  const { schema } = world;
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text NOT NULL, full_name text);
    INSERT INTO ${schema}.people VALUES (1, 'ada@example.com', 'Ada Lovelace'), (2, 'alan@example.com', 'Alan Turing');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text NOT NULL, full_name text);
  `);
  sourceId = await world.connector("source", unique("small-source"));
  destinationId = await world.connector("destination", unique("small-destination"));
  const discovered = await world.api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  modelId = await world.model(unique("small-model"), sourceId, `SELECT * FROM ${schema}.people`);
});

/** A manual full-refresh sync of the model into the world's contacts stream: its id. */
async function manualSync(model: number, destinationId: number): Promise<string> {
  // The reference's clients expect 200 for a created sync, so the API answers it.
  const sync = await world.post("/api/v1/syncs", {
    sync: {
      model_id: model, source_id: sourceId, destination_id: destinationId, stream_name: "contacts", sync_mode: "full_refresh",
      schedule_type: "manual", configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    },
  }, 200);
  world.track(`/api/v1/syncs/${sync.data.id}`);
  return sync.data.id;
}

test.afterAll(() => world.close());

// Each test signs in and walks several pages on a machine shared with other test runs.
test.describe.configure({ timeout: 240_000 });

/** Whether two boxes share any area. */
function overlap(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The elements among `selector` (inside main) whose text is cut: wider or taller than the box that shows it. */
async function clipped(page: Page, selector: string): Promise<string[]> {
  return page.locator("main").evaluate(
    (main, sel) =>
      [...main.querySelectorAll<HTMLElement>(sel)]
        .filter((el) => el.offsetParent !== null && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
        .map((el) => `${el.tagName.toLowerCase()} "${el.textContent?.trim()}" (${el.scrollWidth}×${el.scrollHeight} in ${el.clientWidth}×${el.clientHeight})`),
    selector,
  );
}

async function expectDescribedBy(control: Locator, text: RegExp): Promise<void> {
  await expect(control).toHaveAttribute("aria-invalid", "true");
  await expect(control).toHaveAccessibleDescription(text);
}

atEachViewport((viewport) => {
  const size = `${viewport.width}x${viewport.height}`;
  // A destination of its own, with one table: the stream step's test adds a second one.
  const destinationSchema = unique(`small_dest_${viewport.width}`);
  const destinationName = unique(`small-dest-${viewport.width}`);

  test.beforeAll(async () => {
    await sql(`CREATE SCHEMA ${destinationSchema}; CREATE TABLE ${destinationSchema}.contacts (id integer PRIMARY KEY, email text NOT NULL, full_name text);`);
    await world.connector("destination", destinationName, "Postgresql", pgConfiguration({ schema: destinationSchema }));
  });
  test.afterAll(() => sql(`DROP SCHEMA IF EXISTS ${destinationSchema} CASCADE`));

  test("the stream step: the only stream is chosen already, and Refresh streams finds a table added since", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors; // the fixture fails the test on a browser console error
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/syncs/new?model=${modelId}`));
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    const stream = page.getByLabel("Stream");
    await expect(stream).toHaveValue("contacts");
    await attachShot(page, testInfo, "stream-preselected");

    // A table made after the catalog was read: Refresh streams discovers it without leaving the wizard.
    await sql(`CREATE TABLE ${destinationSchema}.leads (id integer PRIMARY KEY, email text)`);
    await expect(stream.locator("option", { hasText: "leads" })).toHaveCount(0);
    await page.getByRole("button", { name: "Refresh streams" }).click();
    await expect(stream.locator("option", { hasText: "leads" })).toHaveCount(1);
    await expect(stream).toHaveValue("contacts");
    await page.getByLabel("Stream").selectOption("leads");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Map model columns to destination fields" })).toBeVisible();
  });

  test("a template and a schedule that cannot work say what to fix, on their own fields", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await signIn(page, ADMIN.email, ADMIN.password);
    await wizardToMapping(page, modelId, destinationName);

    // A template missing its closing braces: the sentence is under the template's box, in plain words.
    await page.getByLabel("Mapping 1 type").selectOption("template");
    const template = page.getByLabel("Mapping 1 template");
    await template.fill("{{ email | upcase");
    await expectDescribedBy(template, /^"\{\{ email \| upcase" has no closing \}\}: add \}\} at its end\.$/);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Mapping 1:" })).toContainText("has no closing }}");
    await expect(page.getByRole("heading", { name: "Map model columns to destination fields" })).toBeVisible();
    await template.fill("{{ email | upcasee }}");
    await expectDescribedBy(template, /^There is no filter named "upcasee": check its spelling\.$/);
    await attachShot(page, testInfo, "template-problem");
    // No parser jargon, and not the preview's stand-in field name, anywhere on the step.
    await expect(page.locator("main")).not.toContainText(/not closed|undefined filter|Mapping to "value"/);
    await template.fill("{{ email | upcase }}");
    await expect(template).not.toHaveAttribute("aria-invalid", "true");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "When should it run?" })).toBeVisible();

    // A cron expression with a minute of 61: the field says which part is wrong and what it may hold.
    await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("cron_expression");
    const cron = page.getByLabel("Cron expression");
    await cron.fill("61 * * * *");
    await page.getByRole("button", { name: "Continue" }).click();
    await expectDescribedBy(cron, /^The minute \(the 1st field\) "61" is not valid: use 0 to 59, or \*/);
    await attachShot(page, testInfo, "schedule-bad-cron");
    await cron.fill("0 9 * * *");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Name the sync" })).toBeVisible();

    // An emptied "Every" box: what to type, in the unit chosen, not the API's field names.
    await page.getByRole("button", { name: "Go to step 6: Schedule" }).click();
    await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("interval");
    await page.getByLabel("Unit").selectOption("minutes");
    await page.getByLabel("Every").fill("");
    await page.getByRole("button", { name: "Continue" }).click();
    await expectDescribedBy(page.getByLabel("Every"), /^Enter how many minutes to wait between runs: a whole number, 1 or more\.$/);
    await expect(page.locator("main")).not.toContainText(/schedule_type|cron_expression|sync_interval|CronPattern/);
    await attachShot(page, testInfo, "schedule-bad-interval");
  });

  test("the model preview marks the primary key with words, not an emoji", async ({ page, consoleErrors }) => {
    void consoleErrors;
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.goto(url(`/models/${modelId}`));
    await page.getByRole("button", { name: "Preview rows" }).click();
    const table = page.getByRole("table", { name: "Preview of the query's rows" });
    await expect(table.getByRole("columnheader", { name: "id primary key" })).toBeVisible();
    await expect(table.getByRole("columnheader", { name: "email", exact: true })).toBeVisible();
    expect(await table.locator("thead").textContent()).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(await clipped(page, "th")).toEqual([]);
  });

  test("a toast leaves the tables' Previous and Next free", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    // A workspace of its own with more tokens than fit on the screen: the table's pagination ends the page.
    const admin = world.api;
    const created = await admin.post("/api/v1/workspaces", { workspace: { name: unique(`Toasts ${size}`) } });
    expect(created.status(), await created.text()).toBe(201);
    const workspace = (await created.json()).data as { id: string; attributes: { name: string } };
    const inWorkspace = new Api({ ...admin.session, workspaceId: Number(workspace.id) });
    for (let i = 1; i <= 24; i++) {
      const res = await inWorkspace.post("/api/v1/api_tokens", { api_token: { name: `token ${String(i).padStart(2, "0")}` } });
      expect(res.status(), await res.text()).toBe(201);
    }
    try {
      await signIn(page, ADMIN.email, ADMIN.password);
      await page.getByLabel("Workspace").selectOption({ label: workspace.attributes.name });
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API tokens", exact: true }).click();
      const table = page.getByRole("table", { name: "API tokens" });
      await expect(table.getByRole("row")).toHaveCount(25);
      const pagination = page.getByRole("navigation", { name: "Pagination" });
      // Where a person reaching for Next has it: at the bottom of the screen.
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      const pager = (await pagination.boundingBox())!;
      expect(pager.y + pager.height).toBeGreaterThan(viewport.height - 120);

      await table.getByRole("row").last().getByRole("button", { name: "Revoke" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
      const toast = page.getByTestId("toast-success").filter({ hasText: "revoked" });
      await expect(toast).toBeVisible();
      const [toastBox, pagerBox, nextBox] = await Promise.all([toast.boundingBox(), pagination.boundingBox(), pagination.getByRole("button", { name: "Next" }).boundingBox()]);
      await attachShot(page, testInfo, "toast-and-pagination");
      expect(overlap(toastBox!, pagerBox!), `toast ${JSON.stringify(toastBox)} over pagination ${JSON.stringify(pagerBox)}`).toBe(false);
      expect(overlap(toastBox!, nextBox!)).toBe(false);
    } finally {
      await admin.delete(`/api/v1/workspaces/${workspace.id}`);
    }
  });

  test("no column heading or error text is cut off", async ({ page, consoleErrors }, testInfo) => {
    void consoleErrors;
    await signIn(page, ADMIN.email, ADMIN.password);
    // A run that fails (its model reads a table that is gone) gives the runs table and the run page an error to show.
    await sql(`CREATE TABLE ${world.schema}.doomed_${viewport.width} (id integer PRIMARY KEY, email text)`);
    const doomedModel = await world.model(unique("doomed"), sourceId, `SELECT * FROM ${world.schema}.doomed_${viewport.width}`);
    const doomed = await manualSync(doomedModel, destinationId);
    await sql(`DROP TABLE ${world.schema}.doomed_${viewport.width}`);
    await waitForRun(world.api, Number(doomed), await trigger(world.api, Number(doomed)));

    const pages = ["/syncs", `/syncs/${doomed}`, "/models", "/sources", "/destinations", "/settings/members"];
    for (const path of pages) {
      await page.goto(url(path));
      await expect(page.locator("main table").first()).toBeVisible({ timeout: 60_000 });
      if (path === `/syncs/${doomed}`) await expect(page.locator("main table").getByText(/failed/i).first()).toBeVisible({ timeout: 120_000 });
      expect(await clipped(page, "th"), `headings on ${path}`).toEqual([]);
      expect(await clipped(page, "[role=alert], [data-error]"), `error text on ${path}`).toEqual([]);
    }
    await attachShot(page, testInfo, "failed-run-sync-page");
  });

  test("every sidebar entry has an icon of its own", async ({ page, consoleErrors }) => {
    void consoleErrors;
    await signIn(page, ADMIN.email, ADMIN.password);
    const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
    // The entries a permission gates come once the member's role is read: wait for the last of them.
    await expect(links.filter({ hasText: "Audit log" })).toBeVisible();
    const icons = await links.evaluateAll((all) => all.map((a) => ({ label: a.textContent?.trim() ?? "", svg: a.querySelector("svg")?.innerHTML ?? "" })));
    expect(icons.length).toBeGreaterThanOrEqual(10);
    for (const { label, svg } of icons) expect(svg, `${label} has an icon`).not.toBe("");
    const shared = icons.filter((a, i) => icons.findIndex((b) => b.svg === a.svg) !== i).map((a) => a.label);
    expect(shared, "entries whose icon another entry has too").toEqual([]);
  });
});
