// A new user's first sync, end to end in Chromium against the real product and real PostgreSQL:
// sign in → PostgreSQL source and destination → model with preview → sync with a standard, a static
// and a template mapping → Run now → watch it finish → find the failed record's error.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { ADMIN } from "../support/api";
import { expect, nav, shot, signIn, test, url } from "./fixtures";

const PG = { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" };
const schema = `console_e2e_${randomBytes(4).toString("hex")}`;

async function sql(text: string): Promise<void> {
  const client = new Client(PG);
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // The source has five people; one has no email, which the destination's NOT NULL refuses.
  await sql(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, first_name text, last_name text, email text, age integer);
    INSERT INTO ${schema}.people VALUES
      (1, 'Ada', 'Lovelace', 'ada@example.com', 36),
      (2, 'Alan', 'Turing', 'alan@example.com', 41),
      (3, 'Grace', 'Hopper', NULL, 85),
      (4, 'Edsger', 'Dijkstra', 'edsger@example.com', 72),
      (5, 'Barbara', 'Liskov', 'barbara@example.com', 84);
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, full_name text NOT NULL, email text NOT NULL, origin text);
  `);
});

test.afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

async function createPostgresConnector(page: import("@playwright/test").Page, kind: "source" | "destination", name: string) {
  const plural = kind === "source" ? "Sources" : "Destinations";
  await nav(page, plural);
  await shot(page, plural.toLowerCase());
  await page.getByRole("link", { name: `New ${kind}` }).first().click();
  await expect(page.getByRole("heading", { name: `New ${kind}` })).toBeVisible();
  await page.getByRole("button", { name: /PostgreSQL/ }).click();
  await page.getByLabel("Host").fill(PG.host);
  await page.getByLabel("Database").fill(PG.database);
  await page.getByLabel("Schema").fill(schema);
  await page.getByLabel("Username").fill(PG.user);
  if (kind === "source") await shot(page, "source-new-configure");
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(page.getByTestId("check-result")).toContainText("Connection succeeded", { timeout: 60_000 });
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: `Save ${kind}` }).click();
  await expect(page.getByTestId("toast-success").filter({ hasText: `"${name}" created.` })).toBeVisible();
  await page.waitForURL(new RegExp(`/${kind}s/\\d+$`));
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

test("a new user connects PostgreSQL to PostgreSQL, runs a sync and finds the failed record", async ({ page, consoleErrors }) => {
  test.setTimeout(600_000);
  void consoleErrors;
  const tag = schema.slice(-8);
  const sourceName = `People DB ${tag}`;
  const destinationName = `CRM DB ${tag}`;
  const modelName = `All people ${tag}`;
  const syncName = `People to CRM ${tag}`;

  await signIn(page, ADMIN.email, ADMIN.password);
  await shot(page, "dashboard");

  // Source and destination, each through the wizard with a real connection test.
  await createPostgresConnector(page, "source", sourceName);
  await shot(page, "source-detail");
  await page.getByRole("tab", { name: /catalog/i }).click();
  await expect(page.getByText("people", { exact: true })).toBeVisible({ timeout: 60_000 });
  await createPostgresConnector(page, "destination", destinationName);
  await page.getByRole("tab", { name: /catalog/i }).click();
  await expect(page.getByText("contacts", { exact: true })).toBeVisible({ timeout: 60_000 });
  await shot(page, "destination-catalog");

  // Model: SQL, preview, primary key from the preview.
  await nav(page, "Models");
  await page.getByRole("link", { name: "New model" }).first().click();
  await page.getByLabel("Source").selectOption({ label: `${sourceName} (Postgresql)` });
  await page.getByLabel("SQL query").fill(`SELECT id, first_name, last_name, email, age FROM ${schema}.people`);
  await page.getByRole("button", { name: "Preview rows" }).click();
  const preview = page.getByRole("table", { name: "Preview of the query's rows" });
  await expect(preview).toContainText("Lovelace");
  await expect(preview.locator("tbody tr")).toHaveCount(5);
  await expect(page.getByLabel("Primary key")).toHaveValue("id");
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(modelName);
  await shot(page, "model-new");
  await page.getByRole("button", { name: "Create model" }).click();
  await page.waitForURL(/\/models\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: modelName })).toBeVisible();
  await nav(page, "Models");
  await shot(page, "models");

  // Sync: model → destination → stream → mappings → mode → schedule → name.
  await nav(page, "Syncs");
  await page.getByRole("link", { name: "New sync" }).first().click();
  await page.getByLabel("Model").selectOption({ label: `${modelName} (${sourceName})` });
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("contacts");
  await page.getByRole("button", { name: "Continue" }).click();

  // Required destination fields are pre-filled; id and email match model columns by name.
  const target = (i: number) => page.getByLabel(`Mapping ${i} destination field`, { exact: true });
  await expect(target(1)).not.toHaveValue("", { timeout: 60_000 });
  const count = await page.locator('[data-testid^="mapping-"]').count();
  const targets: string[] = [];
  for (let i = 1; i <= count; i++) targets.push(await target(i).inputValue());
  expect(targets).toEqual(expect.arrayContaining(["id", "full_name", "email"]));
  const fullName = targets.indexOf("full_name") + 1;
  await page.getByLabel(`Mapping ${fullName} type`, { exact: true }).selectOption("template");
  await page.getByLabel(`Mapping ${fullName} template`, { exact: true }).fill("{{ first_name }} {{ last_name | upcase }}");
  await expect(page.getByTestId(`template-preview-${fullName - 1}`)).toContainText("Ada LOVELACE");
  await page.getByRole("button", { name: "+ Add mapping" }).click();
  const added = count + 1;
  await page.getByLabel(`Mapping ${added} type`, { exact: true }).selectOption("static");
  await page.getByLabel(`Mapping ${added} value type`, { exact: true }).selectOption("string");
  await page.getByLabel(`Mapping ${added} value`, { exact: true }).fill("console");
  await target(added).fill("origin");
  const email = targets.indexOf("email") + 1;
  await expect(page.getByLabel(`Mapping ${email} type`, { exact: true })).toHaveValue("standard");
  await expect(page.getByLabel(`Mapping ${email} model column`, { exact: true })).toHaveValue("email");
  await shot(page, "sync-new-mapping");
  await page.getByRole("button", { name: "Continue" }).click();

  await page.getByLabel(/Full refresh/).check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Schedule").selectOption("cron_expression");
  await page.getByLabel("Cron expression").fill("30 6 * * 1-5");
  await page.getByLabel("Time zone").selectOption("Europe/Paris");
  await expect(page.getByTestId("next-runs").locator("li")).toHaveCount(5);
  await shot(page, "sync-new-schedule");
  await page.getByLabel("Schedule").selectOption("manual");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(syncName);
  await page.getByRole("button", { name: "Create sync" }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: new RegExp(syncName) })).toBeVisible();

  // Run now and watch it finish.
  await page.getByRole("button", { name: "Run now" }).click();
  const runs = page.getByRole("table", { name: "Runs" });
  await expect(runs).toBeVisible({ timeout: 60_000 });
  await expect(runs.locator("tbody tr").first()).toContainText(/succeeded|failed/, { timeout: 180_000 });
  await expect(runs.locator("tbody tr").first()).toContainText("4");
  await shot(page, "sync-detail");
  await nav(page, "Syncs");
  await shot(page, "syncs");

  // Open the run and find the failed record's error.
  await page.getByRole("link", { name: new RegExp(syncName) }).click();
  await page.getByRole("table", { name: "Runs" }).getByRole("link", { name: /^#\d+$/ }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: /Run #\d+/ })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText("Succeeded", { exact: true }).locator("..")).toContainText("4");
  await expect(page.getByText("Failed", { exact: true }).locator("..")).toContainText("1");
  await page.getByLabel("Status").selectOption("failed");
  const records = page.getByRole("table", { name: "Records" });
  await expect(records.locator("tbody tr")).toHaveCount(1);
  await expect(records).toContainText("3");
  await records.getByRole("button", { name: /Show details/ }).click();
  const details = page.getByTestId("record-details");
  await expect(details).toContainText("Hopper");
  await expect(details.getByRole("note")).toContainText(/null|email/i);
  await shot(page, "run-detail");

  // The dashboard now shows the run.
  await nav(page, "Dashboard");
  await expect(page.getByRole("heading", { name: "Recent runs" })).toBeVisible();
  // Under "Recent runs" (and under "need attention" too: the destination refused a row).
  await expect(page.getByRole("link", { name: syncName }).last()).toBeVisible();
  await shot(page, "dashboard-after-run");

  await page.goto(url("/settings/members"));
  await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();
  await shot(page, "members");
  await nav(page, "Roles");
  await shot(page, "roles");
  await nav(page, "API tokens");
  await shot(page, "api-tokens");
});
