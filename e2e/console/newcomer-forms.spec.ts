// The newcomer's forms and tables, at 1280×800 and 1440×900, in Chromium against the real product:
// the wizard's done steps are clickable, "map fields with the same name" fills the mapping, a bigint
// column is hinted as bigint, an unknown destination field is warned about; the settings view edits
// one section alone and the schedule section has no dead end (bad interval → cron → saved); the
// syncs list fits (element bounds); a Member is not offered the Members page; a taken model or sync
// name is refused next to the Name field. Screenshots are attached to each test.
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { acceptInvitation } from "../support/mailbox";
import { attachShot, expect, signIn, test, url } from "./fixtures";
import { wizardToMapping } from "./wizard";

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
];

for (const viewport of VIEWPORTS) {
  test.describe(`newcomer forms at ${viewport.width}×${viewport.height}`, () => {
    test.describe.configure({ mode: "serial" });
    test.use({ viewport });

    const schema = unique("forms_e2e");
    const sourceName = unique("forms-source");
    const destinationName = unique("forms-destination");
    const modelName = unique("Forms model");
    const syncName = unique("forms-sync");
    const member = { email: `${unique("member")}@example.com`, password: "member-password-1" };
    let context: APIRequestContext;
    let api: Api;
    let sourceId: number;
    let modelId: number;
    let syncId: string;
    const created: string[] = [];

    async function post(path: string, data: unknown, status = 201): Promise<{ id: string }> {
      const res = await api.post(path, data);
      expect(res.status(), await res.text()).toBe(status);
      const body = await res.json();
      const resource = (body.data ?? body) as { id: string };
      created.unshift(`${path}/${resource.id}`);
      return resource;
    }

    async function syncAttributes(): Promise<Record<string, unknown>> {
      const res = await api.get(`/api/v1/syncs/${syncId}`);
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()).data.attributes;
    }

    test.beforeAll(async () => {
      await sql(`
        CREATE SCHEMA ${schema};
        CREATE TABLE ${schema}.people (id bigint PRIMARY KEY, email text NOT NULL, full_name text, lifetime_value bigint);
        INSERT INTO ${schema}.people VALUES (1, 'ada@example.com', 'Ada Lovelace', 9007199254740993), (2, 'alan@example.com', 'Alan Turing', 42);
        CREATE TABLE ${schema}.contacts (id bigint PRIMARY KEY, email text NOT NULL, full_name text, lifetime_value bigint);
      `);
      context = await playwrightRequest.newContext({ baseURL: BASE_URL });
      // No Workspace-Id: the admin's default workspace, the one the console opens.
      api = new Api({ token: await loginAs(context, ADMIN.email, ADMIN.password) });
      const connector = (type: string, name: string) => ({
        connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration({ schema }) },
      });
      sourceId = Number((await post("/api/v1/connectors", connector("source", sourceName))).id);
      await post("/api/v1/connectors", connector("destination", destinationName));
      modelId = Number(
        (
          await post("/api/v1/models", {
            model: { name: modelName, query: `SELECT * FROM ${schema}.people`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
          })
        ).id,
      );
      const me = (await (await api.get("/api/v1/users/me")).json()).data;
      const roles = (await (await api.get("/enterprise/api/v1/roles")).json()).data as { id: string; attributes: { role_name: string } }[];
      const res = await api.post(`/api/v1/workspaces/${me.attributes.workspace_id}/members`, {
        member: { email: member.email, name: "Mo Member", role_id: Number(roles.find((r) => r.attributes.role_name === "Member")!.id) },
      });
      expect(res.status(), await res.text()).toBe(201);
      await acceptInvitation(context, member.email, member.password);
    });

    test.afterAll(async () => {
      for (const path of created) await api.delete(path);
      await context.dispose();
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });

    test("wizard: done steps are clickable, same-name auto-map, bigint hints, unknown field warning", async ({ page, consoleErrors }, testInfo) => {
      void consoleErrors; // the fixture fails the test on a browser console error
      await signIn(page, ADMIN.email, ADMIN.password);
      // The required fields come pre-filled; the button maps the rest that share a column's name.
      await wizardToMapping(page, modelId, destinationName);
      await expect(page.getByTestId("field-type-0")).toBeVisible();
      const rows = page.getByRole("button", { name: /^Remove mapping \d+$/ });
      const before = await rows.count();
      await page.getByRole("button", { name: "Map fields with the same name" }).click();
      await expect(page.getByRole("status").filter({ hasText: /Mapped \d+ fields? with the same name/ })).toBeVisible();
      await expect(rows).toHaveCount(4);
      expect(before).toBeLessThan(4);
      const targets = await Promise.all([1, 2, 3, 4].map((n) => page.getByLabel(`Mapping ${n} destination field`, { exact: true }).inputValue()));
      expect(targets.sort()).toEqual(["email", "full_name", "id", "lifetime_value"]);
      const sources = await Promise.all([1, 2, 3, 4].map((n) => page.getByLabel(`Mapping ${n} model column`, { exact: true }).inputValue()));
      expect(sources.sort()).toEqual(["email", "full_name", "id", "lifetime_value"]);

      // Type hints are the columns' real types: bigint on both sides, never "string".
      const ltv = targets.indexOf("lifetime_value");
      await expect(page.getByTestId(`field-type-${ltv}`)).toHaveText("bigint");
      await expect(page.getByTestId(`column-type-${ltv}`)).toHaveText("bigint");
      await expect(page.getByLabel(`Mapping ${ltv + 1} model column`, { exact: true }).locator("option", { hasText: "lifetime_value (bigint)" })).toHaveCount(1);

      // A destination field the catalog does not have is warned about, beside it.
      await page.getByRole("button", { name: "+ Add mapping" }).click();
      await page.getByLabel("Mapping 5 model column", { exact: true }).selectOption("email");
      await page.getByLabel("Mapping 5 destination field", { exact: true }).fill("emial_adress");
      await expect(page.getByTestId("unknown-field-4")).toContainText("“emial_adress” is not a field of this stream");
      await expect(page.getByTestId("unknown-field-0")).toHaveCount(0);
      await attachShot(page, testInfo, "wizard-mapping");
      await page.getByRole("button", { name: "Remove mapping 5" }).click();
      await expect(page.getByTestId("unknown-field-4")).toHaveCount(0);
      await page.getByRole("button", { name: "Continue" }).click();

      // Steps already done are buttons; a step reached before can be opened again from there.
      await expect(page.getByRole("heading", { name: "How should changes be sent?" })).toBeVisible();
      await page.getByRole("button", { name: "Go to step 2: Destination" }).click();
      await expect(page.getByRole("heading", { name: "Where should the rows go?" })).toBeVisible();
      await page.getByRole("button", { name: "Go to step 5: Mode" }).click();
      await expect(page.getByRole("heading", { name: "How should changes be sent?" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Go to step 6: Schedule" })).toHaveCount(0); // not reached yet
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("interval");
      await page.getByLabel("Every").fill("15");
      await page.getByLabel("Unit").selectOption("minutes");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("textbox", { name: "Name", exact: true }).fill(syncName);
      await attachShot(page, testInfo, "wizard-name");
      await page.getByRole("button", { name: "Create sync" }).click();
      await page.waitForURL(/\/syncs\/\d+$/);
      syncId = new URL(page.url()).pathname.split("/").pop()!;
      created.unshift(`/api/v1/syncs/${syncId}`);
      expect((await syncAttributes()).configuration).toHaveLength(4);
    });

    test("settings: the schedule has no dead end, and each section saves alone", async ({ page, consoleErrors }, testInfo) => {
      void consoleErrors;
      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url(`/syncs/${syncId}`));
      await page.getByRole("link", { name: "Settings" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Sync settings" })).toBeVisible();
      const section = (name: string) => page.getByRole("region", { name });
      const saved = await syncAttributes();

      // The sequence: an invalid interval, then cron. The bad interval is shown beside its
      // field; once the schedule is cron, the hidden interval blocks nothing.
      await section("Schedule").getByRole("button", { name: "Edit schedule" }).click();
      await expect(section("Name").getByRole("button", { name: "Edit name" })).toBeDisabled();
      await page.getByLabel("Every").fill("");
      await page.getByRole("button", { name: "Save schedule" }).click();
      await expect(page.getByLabel("Every")).toHaveAttribute("aria-invalid", "true");
      await expect(section("Schedule").getByText("Enter how many minutes to wait between runs: a whole number, 1 or more.")).toBeVisible();
      await attachShot(page, testInfo, "settings-schedule-bad-interval");
      await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption("cron_expression");
      await page.getByLabel("Cron expression").fill("*/30 * * * *");
      await page.getByRole("button", { name: "Save schedule" }).click();
      await expect(section("Schedule").getByRole("button", { name: "Edit schedule" })).toBeVisible();
      await expect(section("Schedule")).toContainText("Cron */30 * * * * (UTC)");
      const afterSchedule = await syncAttributes();
      expect(afterSchedule).toMatchObject({ schedule_type: "cron_expression", cron_expression: "*/30 * * * *", sync_interval: null });
      expect(afterSchedule).toMatchObject({ name: saved.name, configuration: saved.configuration, sync_mode: saved.sync_mode });

      // The name alone: the schedule and mapping stay as saved.
      const renamed = `${syncName}-renamed`;
      await section("Name").getByRole("button", { name: "Edit name" }).click();
      await page.getByRole("textbox", { name: "Name", exact: true }).fill(renamed);
      await page.getByRole("button", { name: "Save name" }).click();
      await expect(section("Name")).toContainText(renamed);
      const afterName = await syncAttributes();
      expect(afterName).toMatchObject({ name: renamed, schedule_type: "cron_expression", cron_expression: "*/30 * * * *", configuration: saved.configuration });
      await attachShot(page, testInfo, "settings");
    });

    test("a taken name is refused next to the Name field, for syncs and for models", async ({ page }) => {
      // Not the consoleErrors fixture: Chromium logs each refused request ("409 (Conflict)") as a
      // console error, and the 409 is the answer this test expects. Anything else still fails it.
      const errors: string[] = [];
      page.on("console", (msg) => msg.type() === "error" && !/status of 409 \(Conflict\)/.test(msg.text()) && errors.push(msg.text()));
      page.on("pageerror", (err) => errors.push(err.message));
      const other = unique("forms-other-sync");
      await post(
        "/api/v1/syncs",
        {
          sync: {
            name: other, model_id: modelId, source_id: sourceId, destination_id: Number((await syncAttributes()).destination_id),
            stream_name: "contacts", sync_mode: "full_refresh", schedule_type: "manual", configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
          },
        },
        200,
      );
      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url(`/syncs/${syncId}/settings`));
      await page.getByRole("region", { name: "Name" }).getByRole("button", { name: "Edit name" }).click();
      const syncNameBox = page.getByRole("textbox", { name: "Name", exact: true });
      await syncNameBox.fill(other.toUpperCase());
      await page.getByRole("button", { name: "Save name" }).click();
      await expect(syncNameBox).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByRole("region", { name: "Name" })).toContainText(`A sync named "${other.toUpperCase()}" already exists in this workspace`);

      await page.goto(url("/models/new"));
      await page.getByLabel("Source").selectOption({ label: `${sourceName} (Postgresql)` });
      await page.getByLabel("SQL query").fill(`SELECT * FROM ${schema}.people`);
      await page.getByRole("button", { name: "Preview rows" }).click();
      await expect(page.getByLabel("Primary key")).toHaveValue("id");
      const nameBox = page.getByRole("textbox", { name: "Name", exact: true });
      await expect(page.getByText("No two models of the workspace share a name (ignoring case).")).toBeVisible();
      await nameBox.fill(modelName.toLowerCase());
      await page.getByRole("button", { name: "Create model" }).click();
      await expect(nameBox).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByText(`Name is taken: A model named "${modelName.toLowerCase()}" already exists in this workspace`)).toBeVisible();
      expect(page.url()).toMatch(/\/models\/new$/);
      expect(errors, "the browser console stayed free of other errors").toEqual([]);
    });

    test("the syncs list fits the viewport: every header and cell inside the table, no sideways scroll", async ({ page, consoleErrors }, testInfo) => {
      void consoleErrors;
      // A finished run, so "Last run" has content; the interval schedule gives "Next run" one.
      await api.put(`/api/v1/syncs/${syncId}`, { sync: { schedule_type: "interval", sync_interval: 15, sync_interval_unit: "minutes", cron_expression: null } });
      const run = await api.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } });
      expect(run.status(), await run.text()).toBe(200);
      await expect.poll(async () => ((await syncAttributes()).last_run as { status?: string } | null)?.status, { timeout: 60_000 }).toMatch(/^(success|failed)$/);

      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url("/syncs"));
      const table = page.getByRole("table", { name: "Syncs" });
      const row = table.getByRole("row").filter({ hasText: `${syncName}-renamed` });
      await expect(row).toBeVisible();
      for (const header of ["Sync", "Model → destination", "Status", "Schedule", "Last run", "Next run"]) {
        await expect(table.getByRole("columnheader", { name: header })).toBeVisible();
      }
      const cells = row.getByRole("cell");
      await expect(cells.nth(4)).not.toContainText("Never");
      await expect(cells.nth(5)).not.toHaveText("—");

      const layout = await page.evaluate(() => {
        const container = document.querySelector('[data-testid="table-container"]')!;
        const box = container.getBoundingClientRect();
        const outside = [...container.querySelectorAll("th, td")]
          .map((el) => ({ text: el.textContent?.trim().slice(0, 40), r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.width < 1)
          .map(({ text, r }) => `${text} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
        const scrollers = [container, ...container.querySelectorAll("*")].filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible" && getComputedStyle(el).overflowX !== "hidden");
        return {
          outside,
          scrollers: scrollers.length,
          containerRight: box.right,
          viewport: window.innerWidth,
          pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        };
      });
      expect(layout.outside, "headers and cells outside the table's visible box").toEqual([]);
      expect(layout.scrollers, "elements of the table that scroll sideways").toBe(0);
      expect(layout.pageOverflow, "the page scrolls sideways").toBe(0);
      expect(layout.containerRight).toBeLessThanOrEqual(layout.viewport);
      // A cut cell keeps its full text in its title.
      expect(await cells.nth(0).getAttribute("title")).toBe(`${syncName}-renamed`);
      await attachShot(page, testInfo, "syncs-list");
    });

    test("a Member is not offered the Members page; the API reference is linked", async ({ page, consoleErrors }, testInfo) => {
      void consoleErrors;
      await signIn(page, member.email, member.password);
      const navigation = page.getByRole("navigation", { name: "Main" });
      await expect(navigation.getByRole("link", { name: "Roles", exact: true })).toBeVisible();
      await expect(navigation.getByRole("link", { name: "API tokens", exact: true })).toBeVisible();
      await expect(navigation.getByRole("link", { name: "Members", exact: true })).toHaveCount(0);
      await expect(navigation.getByRole("link", { name: /API reference/ })).toHaveAttribute("href", "/docs/api");
      await attachShot(page, testInfo, "member-nav");
      // A typed address gets a sentence, not a permission error.
      await page.goto(url("/settings/members"));
      await expect(page.getByRole("status").filter({ hasText: "Your role (Member) cannot see members in this workspace" })).toBeVisible();
      await page.goto(url("/settings"));
      await page.waitForURL(/\/settings\/roles$/);
    });
  });
}
