// The mapping editor's "If empty" control: a field set to keep the destination's value reaches the
// API as null_policy skip, and the template preview shows an empty value being left out.
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { ADMIN, Api, BASE_URL, loginAs } from "../support/api";
import { pgConfiguration, sql, unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";

const schema = unique("null_policy_e2e");
const destinationName = unique("null-policy-destination");
let context: APIRequestContext;
let api: Api;
let modelId: number;
const created: string[] = [];

async function post(path: string, data: unknown): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(201);
  const id = String((await res.json()).data.id);
  created.unshift(`${path}/${id}`);
  return Number(id);
}

test.beforeAll(async () => {
  // The sample row (the first) has no email.
  await sql(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.people (id integer PRIMARY KEY, email text);
    INSERT INTO ${schema}.people VALUES (1, NULL), (2, 'alan@example.com');
    CREATE TABLE ${schema}.contacts (id integer PRIMARY KEY, email text);
  `);
  context = await playwrightRequest.newContext({ baseURL: BASE_URL });
  api = new Api({ token: await loginAs(context, ADMIN.email, ADMIN.password) });
  const connector = (type: string, name: string) => ({
    connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration({ schema }) },
  });
  const sourceId = await post("/api/v1/connectors", connector("source", unique("null-policy-source")));
  await post("/api/v1/connectors", connector("destination", destinationName));
  modelId = await post("/api/v1/models", {
    model: { name: unique("null-policy-model"), query: `SELECT * FROM ${schema}.people ORDER BY id`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
});

test.afterAll(async () => {
  for (const path of created) await api.delete(path);
  await context.dispose();
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

test("If empty: keep destination value saves null_policy skip, and the preview shows the field left out", async ({ page, consoleErrors }) => {
  void consoleErrors; // the fixture fails the test on a browser console error
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/syncs/new?model=${modelId}`));
  await expect(page.getByLabel("Model")).toHaveValue(String(modelId));
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption("contacts");
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page.getByLabel("Mapping 1 destination field", { exact: true })).not.toHaveValue("", { timeout: 60_000 });
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
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  const name = unique("null-policy-sync");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create sync" }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  const syncId = new URL(page.url()).pathname.split("/").pop()!;
  created.unshift(`/api/v1/syncs/${syncId}`);

  const res = await api.get(`/api/v1/syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
  const configuration = (await res.json()).data.attributes.configuration as { to: string; null_policy?: string }[];
  expect(configuration.find((m) => m.to === "email")).toEqual({ from: "{{ email }}", to: "email", mapping_type: "template", null_policy: "skip" });
  expect(configuration.filter((m) => m.to !== "email").every((m) => m.null_policy === undefined)).toBe(true);
});
