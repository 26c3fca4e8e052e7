// Every connector definition, old and new, against bad configurations over real HTTP: creating one
// with a missing, mistyped or hostile field is a 4xx naming the field (never a 5xx, never stored),
// and check_connection answers a sentence (200 failure, or 422), never a 5xx, and never echoes a
// secret it was given. Table-driven by GET /connector_definitions, so a new connector is covered by
// being registered.
import { expect, test } from "@playwright/test";
import { dataWorkspace, unique, type DataWorkspace } from "../support/data";

interface Definition {
  name: string;
  connector_type: "source" | "destination";
  connector_spec: { connection_specification: { properties?: Record<string, { type?: string | string[]; secret?: boolean }>; required?: string[] } };
}

let ws: DataWorkspace;
let definitions: Definition[];

test.beforeAll(async () => {
  ws = await dataWorkspace("bad-configs");
  definitions = [];
  for (const type of ["source", "destination"]) {
    const res = await ws.admin.get(`/api/v1/connector_definitions?type=${type}`);
    expect(res.status()).toBe(200);
    definitions.push(...((await res.json()) as Definition[]));
  }
  expect(definitions.length).toBeGreaterThan(15);
});

test.afterAll(() => ws?.dispose());

/** A value of the wrong JSON type for a field of `type`. */
function wrongFor(type: string | string[] | undefined): unknown {
  const types = [type ?? "string"].flat();
  if (types.includes("string")) return { not: "a string" };
  if (types.includes("integer") || types.includes("number")) return "12 apples";
  if (types.includes("boolean")) return "maybe";
  if (types.includes("array")) return "not a list";
  return 12;
}

const SECRET = "s3cret-value-that-must-not-come-back";

test("creating any connector with a missing or mistyped field is a 4xx naming it; nothing is stored", async () => {
  // A few requests per definition, and the catalogue has 66 of them now.
  test.setTimeout(300_000);
  const before = (await (await ws.admin.get("/api/v1/connectors?per_page=1")).json()).meta.total_count as number;
  const problems: string[] = [];
  for (const d of definitions) {
    const spec = d.connector_spec.connection_specification;
    const bodies: [string, Record<string, unknown>][] = [];
    if ((spec.required ?? []).length > 0) bodies.push(["no configuration", {}]);
    for (const [field, schema] of Object.entries(spec.properties ?? {})) bodies.push([`${field} mistyped`, { [field]: wrongFor(schema.type) }]);
    bodies.push(["a 100 kB string", Object.fromEntries(Object.keys(spec.properties ?? {}).map((f) => [f, "x".repeat(100_000)]))]);
    for (const [what, configuration] of bodies) {
      const res = await ws.admin.post("/api/v1/connectors", {
        connector: { name: unique("bad"), connector_type: d.connector_type, connector_name: d.name, configuration },
      });
      const label = `${d.connector_type} ${d.name}, ${what}: ${res.status()}`;
      if (res.status() >= 500) problems.push(`${label} ${await res.text()}`);
      else if (res.status() < 400 && what !== "a 100 kB string") problems.push(`${label} accepted`);
      else if (res.status() >= 400 && !/"message"/.test(await res.text())) problems.push(`${label} without a message`);
    }
  }
  expect(problems, problems.join("\n")).toEqual([]);
  const created = (await (await ws.admin.get("/api/v1/connectors?per_page=1")).json()).meta.total_count as number;
  // Only the 100 kB bodies of connectors without a length limit can have been stored.
  expect(created - before).toBeLessThanOrEqual(definitions.length);
});

test("check_connection with bad settings answers a sentence, never a 5xx, never a secret it was sent", async () => {
  const problems: string[] = [];
  for (const d of definitions) {
    const spec = d.connector_spec.connection_specification;
    const secrets = Object.entries(spec.properties ?? {}).filter(([, s]) => s.secret).map(([f]) => f);
    const settings: Record<string, unknown>[] = [
      {},
      Object.fromEntries(Object.entries(spec.properties ?? {}).map(([f, s]) => [f, wrongFor(s.type)])),
      // Plausible-looking values pointing nowhere useful, with the secrets set to a value we look for.
      Object.fromEntries(
        Object.entries(spec.properties ?? {}).map(([f, s]) => [f, secrets.includes(f) ? SECRET : [s.type ?? "string"].flat().includes("string") ? "http://169.254.169.254/latest" : 1]),
      ),
    ];
    for (const connection_spec of settings) {
      const res = await ws.admin.post("/api/v1/connector_definitions/check_connection", { type: d.connector_type, name: d.name, connection_spec });
      const text = await res.text();
      const label = `${d.connector_type} ${d.name} ${JSON.stringify(connection_spec).slice(0, 60)}: ${res.status()}`;
      if (res.status() >= 500) problems.push(`${label} ${text.slice(0, 200)}`);
      if (text.includes(SECRET)) problems.push(`${label} echoed the secret`);
      if (res.status() === 200 && !/"details":"[^"]+/.test(text)) problems.push(`${label} without details`);
    }
  }
  expect(problems, problems.join("\n")).toEqual([]);
});
