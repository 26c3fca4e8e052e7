// The mapping editor's "If empty" control: a field set to keep the destination's value reaches the
// API as null_policy skip, and the template preview shows an empty value being left out.
import { ADMIN } from "../support/api";
import { unique } from "../support/data";
import { expect, signIn, test } from "./fixtures";
import { PgScenario } from "./pg-scenario";
import { createFromWizard, wizardToMapping } from "./wizard";

const world = new PgScenario("null_policy_e2e");
const destinationName = unique("null-policy-destination");
let modelId: number;

test.beforeAll(async () => {
  const { schema } = world;
  // The sample row (the first) has no email.
  await world.open(`
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text);
    INSERT INTO ${schema}.people VALUES (1, NULL), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text);
  `);
  const sourceId = await world.connector("source", unique("null-policy-source"));
  await world.connector("destination", destinationName);
  modelId = await world.model(unique("null-policy-model"), sourceId, `SELECT * FROM ${schema}.people ORDER BY id`);
});

test.afterAll(() => world.close());

test("If empty: keep destination value saves null_policy skip, and the preview shows the field left out", async ({ page, consoleErrors }) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, ADMIN.email, ADMIN.password);
  await wizardToMapping(page, modelId, destinationName);
  // Every field writes null when empty until told otherwise.
  await expect(page.getByLabel("Mapping 1 if empty", { exact: true })).toHaveValue("write");
  await page.getByRole("button", { name: "+ Add mapping" }).click();
  const extra = await page.getByLabel(/^Mapping \d+ type$/).count();
  await page.getByLabel(`Mapping ${extra} type`, { exact: true }).selectOption("template");
  await page.getByLabel(`Mapping ${extra} template`, { exact: true }).fill("{{ email }}");
  await page.getByLabel(`Mapping ${extra} destination field`, { exact: true }).fill("email");
  const preview = page.getByTestId(`template-preview-${extra - 1}`);
  await expect(preview).toContainText("Preview on the sample row");
  await page.getByLabel(`Mapping ${extra} if empty`, { exact: true }).selectOption("skip");
  await expect(preview).toContainText("Empty on the sample row: the field is left out, the destination keeps its value.");
  // Only the template maps email: drop a same-name column mapping of it, if the wizard made one.
  for (let i = extra - 1; i >= 1; i--) {
    if ((await page.getByLabel(`Mapping ${i} destination field`, { exact: true }).inputValue()) === "email") {
      await page.getByRole("button", { name: `Remove mapping ${i}`, exact: true }).click();
    }
  }
  const syncId = await createFromWizard(page, unique("null-policy-sync"));
  world.track(`/api/v1/syncs/${syncId}`);

  const { configuration } = await world.attributes<{ configuration: { to: string; null_policy?: string }[] }>(`/api/v1/syncs/${syncId}`);
  expect(configuration.find((m) => m.to === "email")).toEqual({ from: "{{ email }}", to: "email", mapping_type: "template", null_policy: "skip" });
  expect(configuration.filter((m) => m.to !== "email").every((m) => m.null_policy === undefined)).toBe(true);
});
