// Issue 35, points 5 (b) and 6, in Chromium at 1280×800 and 1440×900: deleting a model asks with the
// syncs that go with it listed by name, and deleting then takes them (as the reference server does,
// whose console says "deleted" whatever the answer); a delete that dependents still block (a role
// members hold) is a disabled button with the reason beside it, not a click and then an error.
import { sql, unique } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { ADMIN } from "../support/api";
import { atEachViewport, attachShot, expect, signIn, test, url } from "./fixtures";
import { PgScenario } from "./pg-scenario";

let destination: HoldingDestination;

test.beforeAll(async () => {
  destination = await holdingDestination();
});

test.afterAll(async () => {
  await destination?.close();
});

atEachViewport(() => {
  test("the model's delete confirmation names the syncs that go with it, and deleting takes them", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(180_000);
    void consoleErrors; // the fixture fails the test on a browser console error
    const world = new PgScenario("refclients_e2e");
    try {
      await world.open(`CREATE TABLE ${"SCHEMA"}.people (id integer PRIMARY KEY, email text); INSERT INTO ${"SCHEMA"}.people VALUES (1, 'ada@example.com');`.replaceAll("SCHEMA", world.schema));
      const sourceId = await world.connector("source", unique("Warehouse"));
      const destinationId = await world.connector("destination", unique("Hook"), "Http", { destination_url: destination.url, timeout: 30, batch_size: 10 });
      const discovered = await world.api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
      expect(discovered.status(), await discovered.text()).toBe(200);
      const modelName = unique("People");
      const modelId = await world.model(modelName, sourceId, `SELECT id, email FROM ${world.schema}.people`);
      const syncNames = [unique("People to CRM"), unique("People nightly")];
      const syncIds: number[] = [];
      for (const name of syncNames) {
        const res = await world.api.post("/api/v1/syncs", {
          sync: {
            name,
            source_id: sourceId,
            destination_id: destinationId,
            model_id: modelId,
            schedule_type: "manual",
            sync_mode: "full_refresh",
            stream_name: "webhook",
            configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
          },
        });
        expect(res.status(), await res.text()).toBe(200);
        syncIds.push(Number((await res.json()).data.id));
      }

      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url(`/models/${modelId}`));
      await expect(page.getByRole("heading", { level: 1, name: modelName })).toBeVisible({ timeout: 60_000 });
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: `Delete model “${modelName}”?` });
      await expect(dialog).toContainText("Deleting it also deletes 2 syncs, with their runs and records.");
      const listed = dialog.getByTestId("delete-dependents");
      await expect(listed).toContainText("Syncs deleted with it (2)");
      for (const name of syncNames) await expect(listed.getByRole("link", { name })).toBeVisible();
      const confirm = dialog.getByRole("button", { name: "Delete all" });
      await expect(confirm).toBeEnabled();
      await attachShot(page, testInfo, "model-delete-confirmation");

      await confirm.click();
      await page.waitForURL(/\/models$/, { timeout: 60_000 });
      // What the confirmation said went, went: the model and both syncs.
      expect((await world.api.get(`/api/v1/models/${modelId}`)).status()).toBe(404);
      for (const id of syncIds) expect((await world.api.get(`/api/v1/syncs/${id}`)).status()).toBe(404);
    } finally {
      await world.close();
    }
  });

  test("a role a member holds: its Delete is disabled, with the reason beside it", async ({ page, consoleErrors }, testInfo) => {
    test.setTimeout(120_000);
    void consoleErrors;
    const world = new PgScenario("refclients_roles");
    let roleId: number | undefined;
    let memberId: number | undefined;
    let workspaceId: number | undefined;
    try {
      await world.open("SELECT 1;");
      const me = (await (await world.api.get("/api/v1/users/me")).json()).data;
      workspaceId = Number(me.attributes.workspace_id);
      const roleName = unique("Auditor");
      const role = await world.api.post("/enterprise/api/v1/roles", {
        role: { role_name: roleName, role_desc: "Reads syncs", policies: { permissions: { sync: { read: true } } } },
      });
      expect(role.status(), await role.text()).toBe(201);
      roleId = Number((await role.json()).data.id);
      const member = await world.api.post(`/api/v1/workspaces/${workspaceId}/members`, {
        member: { email: `${unique("auditor")}@example.com`, name: "Ada Auditor", role_id: roleId },
      });
      expect(member.status(), await member.text()).toBe(201);
      memberId = Number((await member.json()).data.id);

      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto(url("/settings/roles"));
      await expect(page.getByRole("heading", { level: 1, name: "Roles" })).toBeVisible({ timeout: 60_000 });
      const card = page.locator("section, div").filter({ has: page.getByText(roleName) }).filter({ has: page.getByRole("button", { name: "Delete" }) }).last();
      const remove = card.getByRole("button", { name: "Delete" });
      await expect(remove).toBeDisabled();
      await expect(card.getByText("In use by 1 member: give them another role first.")).toBeVisible();
      await expect(remove).toHaveAccessibleDescription("In use by 1 member: give them another role first.");
      await attachShot(page, testInfo, "role-delete-disabled");
    } finally {
      if (workspaceId !== undefined && memberId !== undefined) await world.api.delete(`/api/v1/workspaces/${workspaceId}/members/${memberId}`);
      if (roleId !== undefined) await world.api.delete(`/enterprise/api/v1/roles/${roleId}`);
      await world.close();
      await sql("SELECT 1");
    }
  });
});
