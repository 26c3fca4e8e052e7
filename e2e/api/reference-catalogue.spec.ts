// The reference's catalogue contract (issue 34): each tests/fixtures/reference-settings/*.json holds a
// Multiwoven connector's own minimal settings (its spec.json's required fields, realistic values).
// Each is created through the API unchanged (201), read back with every secret masked, and its
// definition answers under the reference's name with the reference's category. Engineers adding a
// connector add its file; this spec needs no edit.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { dataWorkspace, MASK, unique, type DataWorkspace } from "../support/data";

interface Fixture {
  connector_type: "source" | "destination";
  connector_name: string;
  configuration: Record<string, unknown>;
}

const DIR = path.join(process.cwd(), "tests/fixtures/reference-settings");
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, fixture: JSON.parse(readFileSync(path.join(DIR, file), "utf8")) as Fixture }));

/**
 * The reference's meta.json category of each connector this file's author checked; connectors added
 * later are checked for having a category at all (their own unit tests pin the value).
 */
const CATEGORY: Record<string, string> = {
  "source:Postgresql": "Data Warehouse",
  "source:MariaDB": "Data Warehouse",
  "source:HttpModel": "AI Model",
  "source:OpenAI": "AI Model",
  "destination:Postgresql": "Database",
  "destination:MariaDB": "Database",
  "destination:Http": "HTTP",
  "destination:Slack": "Team Collaboration",
  "destination:Hubspot": "CRM",
  "destination:Airtable": "Productivity Tools",
  "destination:Iterable": "Marketing Automation",
  "destination:Klaviyo": "Marketing Automation",
  "destination:Mailchimp": "Marketing Automation",
  "destination:GoogleSheets": "Productivity Tools",
  "destination:SalesforceCrm": "CRM",
};

type Schema = { properties?: Record<string, Schema>; secret?: boolean };

/** Dotted paths of the specification's secret fields. */
function secretPaths(schema: Schema, prefix = ""): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => {
    const at = prefix ? `${prefix}.${key}` : key;
    return child.secret ? [at] : secretPaths(child, at);
  });
}

const at = (value: unknown, dotted: string): unknown =>
  dotted.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), value);

/** Every string leaf, to make sure none of the secret ones comes back. */
const leaves = (value: unknown): string[] =>
  typeof value === "string" ? [value] : value && typeof value === "object" ? Object.values(value).flatMap(leaves) : [];

let ws: DataWorkspace;
test.beforeAll(async () => {
  ws = await dataWorkspace("refcat");
});
test.afterAll(async () => {
  await ws?.dispose();
});

test("there is a reference settings file for each connector of ours the reference has", () => {
  expect(fixtures.map((f) => `${f.fixture.connector_type}:${f.fixture.connector_name}`)).toEqual(expect.arrayContaining(Object.keys(CATEGORY)));
});

for (const { file, fixture } of fixtures) {
  test(`${file}: the reference's settings create a connector, secrets masked, under the reference's name and category`, async () => {
    const { connector_type: type, connector_name: name, configuration } = fixture;
    const definitionRes = await ws.viewer.get(`/api/v1/connector_definitions/${encodeURIComponent(name)}?type=${type}`);
    expect(definitionRes.status(), await definitionRes.text()).toBe(200);
    const definition = await definitionRes.json();
    expect(definition).toMatchObject({ name, connector_type: type });
    const expected = CATEGORY[`${type}:${name}`];
    if (expected) expect(definition.category).toBe(expected);
    else expect(typeof definition.category).toBe("string");
    // Destinations have no sub_category in the reference.
    if (type === "destination") expect(definition.sub_category).toBeNull();

    const created = await ws.admin.post("/api/v1/connectors", { connector: { name: unique(name), connector_type: type, connector_name: name, configuration } });
    expect(created.status(), await created.text()).toBe(201);
    const id = (await created.json()).data.id;
    const shown = await ws.viewer.get(`/api/v1/connectors/${id}`);
    expect(shown.status()).toBe(200);
    const text = await shown.text();
    const attributes = JSON.parse(text).data.attributes;
    expect(attributes).toMatchObject({ connector_type: type, connector_name: name });
    const secrets = secretPaths(definition.connector_spec.connection_specification).filter((p) => at(configuration, p) !== undefined);
    for (const p of secrets) {
      const given = at(configuration, p);
      if (typeof given === "string" && given !== "") expect(at(attributes.configuration, p), p).toBe(MASK);
      for (const value of leaves(given)) if (value.length >= 6) expect(text, `${p} leaked`).not.toContain(value);
    }

    // The list filters: the connector's category by name, and its group.
    const group = definition.category === "AI Model" ? "ai_ml" : "data";
    for (const category of [definition.category, definition.category.toUpperCase(), group]) {
      const list = await ws.viewer.get(`/api/v1/connectors?type=${type}&category=${encodeURIComponent(category)}&per_page=100`);
      expect(list.status(), await list.text()).toBe(200);
      expect((await list.json()).data.map((c: { id: string }) => c.id), category).toContain(id);
    }
  });
}

test("our earlier name answers the reference's definition; stored connectors show the reference's name", async () => {
  const alias = await ws.viewer.get("/api/v1/connector_definitions/Salesforce?type=destination");
  expect(alias.status()).toBe(200);
  expect(await alias.json()).toMatchObject({ name: "SalesforceCrm", category: "CRM", sub_category: null });
  const fixture = fixtures.find((f) => f.fixture.connector_name === "SalesforceCrm")!.fixture;
  const created = await ws.admin.post("/api/v1/connectors", { connector: { name: unique("sf"), connector_type: "destination", connector_name: "Salesforce", configuration: fixture.configuration } });
  expect(created.status(), await created.text()).toBe(201);
  const connector = (await created.json()).data;
  expect(connector.attributes.connector_name).toBe("SalesforceCrm");
  // Naming the alias on update is no change of connector.
  const updated = await ws.admin.put(`/api/v1/connectors/${connector.id}`, { connector: { connector_name: "Salesforce", description: "renamed by alias" } });
  expect(updated.status(), await updated.text()).toBe(200);
});

test("the definitions list filter takes a group or one category, in any case", async () => {
  const names = async (query: string) => {
    const res = await ws.viewer.get(`/api/v1/connector_definitions?${query}`);
    expect(res.status(), await res.text()).toBe(200);
    return ((await res.json()) as { name: string; connector_type: string; category: string }[]).map((d) => `${d.connector_type}:${d.name}`);
  };
  const crm = await names("category=CRM");
  expect(crm).toEqual(expect.arrayContaining(["destination:Hubspot", "destination:SalesforceCrm"]));
  expect(await names("category=crm")).toEqual(crm);
  const warehouses = await names("category=Data%20Warehouse&type=source");
  expect(warehouses).toEqual(expect.arrayContaining(["source:Postgresql", "source:MariaDB"]));
  expect(await names("category=AI_ML")).toEqual(expect.arrayContaining(["source:HttpModel", "source:OpenAI"]));
  const bad = await ws.viewer.get("/api/v1/connector_definitions?category=Warehouses");
  expect(bad.status()).toBe(400);
  expect(await bad.text()).toContain("Data Warehouse");
});
