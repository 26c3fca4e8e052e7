// Issue 20's newcomer, in one go: the whole path a new user takes through the console, chained in
// one test per viewport (1280×800 and 1440×900) in Chromium against the real product and real
// PostgreSQL. Sign in → source and destination (labelled settings) → model (a typo reported against
// the user's own SQL, then a preview) → sync with three mapping types (auto-map, unknown-field
// warning) → settings (no dead end on the schedule) → a run held mid-way by a lock this test holds on
// the destination table (progress below 100%) and canceled ("canceled by <name>", health unchanged)
// → a full run with a rejected row (the derived outcome in runs, header, syncs list and dashboard)
// → records (search by key, payload view, CSV export) → test with one picked row → syncs list bounds
// → members, API tokens, API reference. Screenshots of each step are attached to the test.
import { readFile } from "node:fs/promises";
import { Client } from "pg";
import type { Page } from "@playwright/test";
import { ADMIN, adminApi, type Api } from "../support/api";
import { PG, sql, unique } from "../support/data";
import { actorName, syncAttributes } from "../support/run-scenarios";
import { attachShot, expect, nav, signIn, test, url } from "./fixtures";

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
];
/** Enough rows that the run is still reading when the lock stops its first write. */
const ROWS = 20_000;
/** The one row the destination refuses: it has no email, and contacts.email is NOT NULL. */
const REJECTED_ID = 3;

/** Holds an exclusive lock on a table from another session until released: writes to it wait. */
async function lockTable(table: string): Promise<{ release: () => Promise<void> }> {
  const client = new Client({ ...PG, password: PG.password || undefined });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await client.query("ROLLBACK").finally(() => client.end());
    },
  };
}

for (const viewport of VIEWPORTS) {
  test.describe(`the newcomer's journey at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    const schema = unique("journey_e2e");
    const tag = schema.slice(-8);
    const names = {
      source: `People DB ${tag}`,
      destination: `CRM DB ${tag}`,
      model: `All people ${tag}`,
      sync: `People to CRM ${tag}`,
    };
    let api: Api;
    let lock: { release: () => Promise<void> } | undefined;

    test.beforeAll(async ({ request }) => {
      api = await adminApi(request);
      await sql(`
        CREATE SCHEMA ${schema};
        CREATE TABLE ${schema}.people (id integer PRIMARY KEY, first_name text, last_name text, email text, age integer);
        INSERT INTO ${schema}.people
          SELECT g, 'First' || g, 'Last' || g, CASE WHEN g = ${REJECTED_ID} THEN NULL ELSE 'p' || g || '@example.com' END, g % 90
          FROM generate_series(1, ${ROWS}) g;
        ANALYZE ${schema}.people;
        CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, full_name text NOT NULL, email text NOT NULL, origin text);
      `);
    });

    test.afterAll(async () => {
      await lock?.release().catch(() => undefined);
      // The API removes what the journey made, newest first; the schema goes last.
      const list = async (path: string) => ((await (await api.get(path)).json()).data ?? []) as { id: string; attributes: { name: string } }[];
      for (const s of await list("/api/v1/syncs?per_page=100")) if (s.attributes.name === names.sync) await api.delete(`/api/v1/syncs/${s.id}`);
      for (const m of await list("/api/v1/models?per_page=100")) if (m.attributes.name === names.model) await api.delete(`/api/v1/models/${m.id}`);
      for (const c of await list("/api/v1/connectors?per_page=100")) {
        if (c.attributes.name === names.source || c.attributes.name === names.destination) await api.delete(`/api/v1/connectors/${c.id}`);
      }
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });

    async function createConnector(page: Page, kind: "source" | "destination", name: string): Promise<void> {
      await nav(page, kind === "source" ? "Sources" : "Destinations");
      await page.getByRole("link", { name: `New ${kind}` }).first().click();
      await page.getByRole("button", { name: /PostgreSQL/ }).click();
      await page.getByLabel("Host").fill(PG.host);
      await page.getByLabel("Database").fill(PG.database);
      await page.getByLabel("Schema").fill(schema);
      await page.getByLabel("Username").fill(PG.user);
      await page.getByRole("button", { name: "Test connection" }).click();
      await expect(page.getByTestId("check-result")).toContainText("Connection succeeded", { timeout: 60_000 });
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel("Name").fill(name);
      await page.getByRole("button", { name: `Save ${kind}` }).click();
      await page.waitForURL(new RegExp(`/${kind}s/\\d+$`));
      await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
    }

    test("sign-in to API reference, every fix on the way", async ({ page }, testInfo) => {
      test.setTimeout(600_000);
      // Not the consoleErrors fixture: Chromium logs the model preview's refused query (the 422 this
      // test expects) as a console error. Any other error still fails the test, at its end.
      const errors: string[] = [];
      page.on("console", (msg) => msg.type() === "error" && !/status of 422 \(Unprocessable Entity\)/.test(msg.text()) && errors.push(msg.text()));
      page.on("pageerror", (err) => errors.push(err.message));
      const who = await actorName(api);
      await signIn(page, ADMIN.email, ADMIN.password);
      await attachShot(page, testInfo, "01-dashboard");

      // Source and destination. The destination's page shows labelled settings in the
      // definition's order, and its streams no HTTP options or raw JSON Schema (point 10).
      await createConnector(page, "source", names.source);
      await createConnector(page, "destination", names.destination);
      const settings = page.getByTestId("connector-settings").first();
      const labels = (await settings.locator("dt").allTextContents()).map((t) => t.trim());
      const order = ["Host", "Port", "Database", "Schema", "Username"].map((l) => labels.indexOf(l));
      expect(order.every((i) => i >= 0), `labels shown: ${labels.join(", ")}`).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      await expect(page.getByText(/CREDENTIALS\./i)).toHaveCount(0);
      await page.getByRole("tab", { name: "Streams (catalog)" }).click();
      await page.getByRole("button", { name: /contacts/ }).click({ timeout: 60_000 });
      await expect(page.getByRole("table", { name: "Columns of contacts" })).toContainText("email");
      await expect(page.getByText("Request method")).toHaveCount(0);
      await expect(page.getByText(/JSON Schema/)).toHaveCount(0);
      await attachShot(page, testInfo, "02-destination");

      // Model: a typo is reported against the user's own SQL, with no internal ids (point 11).
      await nav(page, "Models");
      await page.getByRole("link", { name: "New model" }).first().click();
      await page.getByLabel("Source").selectOption({ label: `${names.source} (Postgresql)` });
      const query = page.getByLabel("SQL query");
      await query.fill(`SELECT id, first_nme, last_name, email, age FROM ${schema}.people`);
      await page.getByRole("button", { name: "Preview rows" }).click();
      const typo = page.getByText(/column "first_nme" does not exist at line 1, column 12 of your query/);
      await expect(typo).toBeVisible({ timeout: 60_000 });
      await expect(page.getByText(/connector \d+/i)).toHaveCount(0);
      await attachShot(page, testInfo, "03-model-typo");
      await query.fill(`SELECT id, first_name, last_name, email, age FROM ${schema}.people`);
      await page.getByRole("button", { name: "Preview rows" }).click();
      await expect(page.getByRole("table", { name: "Preview of the query's rows" })).toContainText("First1", { timeout: 60_000 });
      await expect(page.getByLabel("Primary key")).toHaveValue("id");
      await page.getByRole("textbox", { name: "Name", exact: true }).fill(names.model);
      await page.getByRole("button", { name: "Create model" }).click();
      await page.waitForURL(/\/models\/\d+$/);

      // Sync: auto-map, a template and a static mapping, the unknown-field warning (point 6).
      await nav(page, "Syncs");
      await page.getByRole("link", { name: "New sync" }).first().click();
      await page.getByLabel("Model").selectOption({ label: `${names.model} (${names.source})` });
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("radio", { name: new RegExp(names.destination) }).click();
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel("Stream").selectOption("contacts");
      await page.getByRole("button", { name: "Continue" }).click();
      const target = (n: number) => page.getByLabel(`Mapping ${n} destination field`, { exact: true });
      await expect(target(1)).not.toHaveValue("", { timeout: 60_000 });
      await page.getByRole("button", { name: "Map fields with the same name" }).click();
      await expect(page.getByRole("status").filter({ hasText: /Mapped \d+ fields? with the same name|No more fields with the same name/ })).toBeVisible();
      const rows = page.getByRole("button", { name: /^Remove mapping \d+$/ });
      const count = await rows.count();
      const targets: string[] = [];
      for (let n = 1; n <= count; n++) targets.push(await target(n).inputValue());
      for (const field of ["id", "email"]) {
        await expect(page.getByLabel(`Mapping ${targets.indexOf(field) + 1} model column`, { exact: true })).toHaveValue(field);
      }
      const fullName = targets.indexOf("full_name") + 1;
      expect(fullName).toBeGreaterThan(0);
      await page.getByLabel(`Mapping ${fullName} type`, { exact: true }).selectOption("template");
      await page.getByLabel(`Mapping ${fullName} template`, { exact: true }).fill("{{ first_name }} {{ last_name | upcase }}");
      await expect(page.getByTestId(`template-preview-${fullName - 1}`)).toContainText("First1 LAST1");
      await page.getByRole("button", { name: "+ Add mapping" }).click();
      await page.getByLabel(`Mapping ${count + 1} type`, { exact: true }).selectOption("static");
      await page.getByLabel(`Mapping ${count + 1} value type`, { exact: true }).selectOption("string");
      await page.getByLabel(`Mapping ${count + 1} value`, { exact: true }).fill("console");
      await target(count + 1).fill("orign");
      await expect(page.getByTestId(`unknown-field-${count}`)).toContainText("“orign” is not a field of this stream");
      await attachShot(page, testInfo, "04-mapping-warning");
      await target(count + 1).fill("origin");
      await expect(page.getByTestId(`unknown-field-${count}`)).toHaveCount(0);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel(/Full refresh/).check();
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("manual");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("textbox", { name: "Name", exact: true }).fill(names.sync);
      await page.getByRole("button", { name: "Create sync" }).click();
      await page.waitForURL(/\/syncs\/\d+$/);
      const syncId = Number(new URL(page.url()).pathname.split("/").pop());
      const header = page.getByRole("heading", { level: 1 });
      await expect(header).toContainText(names.sync);

      // Settings: the schedule's bad interval is shown beside it, and switching to cron is not a
      // dead end (point 3); the section saves alone (point 4). A cron that never fires during a test.
      await page.getByRole("link", { name: "Settings" }).click();
      const section = (name: string) => page.getByRole("region", { name });
      await section("Schedule").getByRole("button", { name: "Edit schedule" }).click();
      await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("interval");
      await page.getByLabel("Every").fill("");
      await page.getByRole("button", { name: "Save schedule" }).click();
      await expect(page.getByLabel("Every")).toHaveAttribute("aria-invalid", "true");
      await attachShot(page, testInfo, "05-schedule-bad-interval");
      await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("cron_expression");
      await page.getByLabel("Cron expression").fill("0 3 1 1 *");
      await page.getByRole("button", { name: "Save schedule" }).click();
      await expect(section("Schedule")).toContainText("Cron 0 3 1 1 * (UTC)");
      expect(await syncAttributes(api, syncId)).toMatchObject({ schedule_type: "cron_expression", name: names.sync });

      // A run held mid-way: its first write waits on this test's lock, so progress reads below
      // 100% against the counted total (a bounded count of the model: no "~", issue 35 point 3; point 1). Canceled: "canceled by <name>", and the sync's
      // health stays what it was (point 9).
      await page.goto(url(`/syncs/${syncId}`));
      lock = await lockTable(`${schema}.contacts`);
      await page.getByRole("button", { name: "Run now" }).click();
      const runs = page.getByRole("table", { name: "Runs" });
      const bar = runs.locator("tbody tr").first().getByRole("progressbar", { name: "Run progress" });
      await expect(bar).toHaveAttribute("aria-valuetext", / of [\d,]+ rows \(\d{1,2}%\)/, { timeout: 90_000 });
      await expect(bar).toHaveAttribute("aria-valuenow", /^\d{1,2}$/);
      // The progress line is readable in the runs table, not cut off by its column.
      const line = runs.getByTestId("run-progress").first().locator("p").first();
      expect(await line.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      await attachShot(page, testInfo, "06-progress-mid-run");
      const before = (await syncAttributes(api, syncId)).status;
      await page.getByRole("button", { name: "Cancel run" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Cancel run" }).click();
      await lock.release();
      await expect(runs.locator("tbody tr").first()).toContainText(`canceled by ${who}`, { timeout: 90_000 });
      await expect(page.getByTestId("sync-header-last-run")).toContainText(`canceled by ${who}`);
      expect((await syncAttributes(api, syncId)).status).toBe(before);
      await attachShot(page, testInfo, "07-canceled-by");

      // A whole run: one row refused, so "succeeded with 1 rejected row" in the runs list, the
      // header, the syncs list and the dashboard, which counts it as needing attention (point 2).
      const outcome = "succeeded with 1 rejected row";
      await page.getByRole("button", { name: "Run now" }).click();
      await expect(runs.locator("tbody tr").first()).toContainText(outcome, { timeout: 180_000 });
      await expect(page.getByTestId("sync-header-last-run")).toContainText(outcome);
      // Rejected rows need attention (issue 35 point 1): the badge says so, not "healthy".
      await expect(header).toContainText("needs attention");
      await attachShot(page, testInfo, "08-sync-outcome");
      await page.goto(url("/syncs"));
      const listRow = page.getByRole("table", { name: "Syncs" }).locator("tbody tr").filter({ has: page.getByRole("link", { name: names.sync }) });
      await expect(listRow).toContainText(outcome, { timeout: 60_000 });
      // Tables fit the viewport: every header and cell inside the table, no sideways scroll (point 5).
      const layout = await page.evaluate(() => {
        const container = document.querySelector('[data-testid="table-container"]')!;
        const box = container.getBoundingClientRect();
        const outside = [...container.querySelectorAll("th, td")]
          .map((el) => ({ text: el.textContent?.trim().slice(0, 40), r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.width < 1)
          .map(({ text }) => text);
        return { outside, pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
      });
      expect(layout.outside, "headers and cells outside the table's visible box").toEqual([]);
      expect(layout.pageOverflow, "the page scrolls sideways").toBe(0);
      await attachShot(page, testInfo, "09-syncs-list");
      await nav(page, "Dashboard");
      const attention = page
        .locator("div")
        .filter({ has: page.getByRole("heading", { name: "Syncs that need attention" }) })
        .filter({ has: page.getByRole("list") })
        .last();
      await expect(attention.getByRole("listitem").filter({ has: page.getByRole("link", { name: names.sync }) })).toContainText(outcome);
      await expect(page.getByText("All syncs are fine.")).toHaveCount(0);
      await attachShot(page, testInfo, "10-dashboard-attention");

      // Records: search by primary key, the refused row's source row, payload and response, and
      // the CSV export with the status filter applied (point 7).
      await page.goto(url(`/syncs/${syncId}`));
      await runs.getByRole("link", { name: /^#\d+$/ }).first().click();
      await expect(page.getByRole("heading", { level: 1, name: /Run #\d+/ })).toBeVisible({ timeout: 60_000 });
      const runId = new URL(page.url()).pathname.split("/").pop();
      const records = page.getByRole("table", { name: "Records" });
      await page.getByRole("searchbox", { name: "Primary key" }).fill(String(REJECTED_ID));
      await page.getByRole("button", { name: "Search" }).click();
      await expect(records.getByRole("row")).toHaveCount(2);
      await expect(records.getByRole("row").nth(1)).toContainText("failed");
      await page.getByRole("button", { name: `Show details of record ${REJECTED_ID}` }).click();
      const details = page.getByTestId("record-details");
      await expect(details.getByLabel("Source row")).toContainText('"email": null');
      await expect(details.getByLabel("Mapped payload")).toContainText(`"full_name": "First${REJECTED_ID} LAST${REJECTED_ID}"`);
      await expect(details.getByLabel("Response")).toContainText(/null/);
      await attachShot(page, testInfo, "11-record-details");
      await page.getByRole("button", { name: "Clear" }).click();
      await page.getByLabel("Status").selectOption("failed");
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      expect(download.suggestedFilename()).toBe(`sync-${syncId}-run-${runId}-records-failed.csv`);
      const csv = (await readFile((await download.path())!, "utf8")).trim().split("\r\n");
      expect(csv).toHaveLength(2);
      expect(csv[1]).toContain(`,${REJECTED_ID},failed,`);

      // Test with one row: says what it writes, sends the picked row, shows the result inline (point 8).
      await page.goto(url(`/syncs/${syncId}`));
      await page.getByRole("button", { name: "Test with one row" }).click();
      const dialog = page.getByRole("dialog", { name: "Send one row to the destination?" });
      await expect(dialog).toContainText(`writes one real row to ${names.destination} (Postgresql), stream contacts`);
      await dialog.getByLabel("Row to send: its id").fill("42");
      await dialog.getByRole("button", { name: "Send row 42" }).click();
      const result = page.getByTestId("test-run-result");
      await expect(result).toContainText("success", { timeout: 60_000 });
      await expect(page.getByTestId("record-details").getByLabel("Source row")).toContainText('"id": 42');
      await expect(page.getByText("Sync test triggered successful")).toHaveCount(0);
      await attachShot(page, testInfo, "12-test-row");

      // Members, API tokens and the API reference, all reachable from the navigation (points 12).
      await nav(page, "Members");
      await expect(page.getByText(ADMIN.email).first()).toBeVisible();
      await nav(page, "API tokens");
      await attachShot(page, testInfo, "13-api-tokens");
      const reference = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /API reference/ });
      await expect(reference).toHaveAttribute("href", "/docs/api");
      const docs = await page.request.get(url("/docs/api"));
      expect(docs.status()).toBe(200);
      expect(errors, "the browser console stayed free of other errors").toEqual([]);
    });
  });
}
