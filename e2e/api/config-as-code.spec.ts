// Configuration as code over real HTTP (docs/config-as-code.md): export as YAML without secrets,
// plan and apply (create, update, delete by slug), one transaction (an error anywhere writes
// nothing), ${env:NAME} never resolved from the server's environment, per-kind permissions, and a
// round trip into a new workspace that exports the same text.
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { secretRefs } from "../../lib/config-as-code/secret-refs";
import { expectError, fieldErrors, memberWithRole, type Api } from "../support/api";
import { dataWorkspace, pgConfiguration, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
const PASSWORD = "unused-password";

type Doc = {
  version: number;
  prune?: boolean;
  connectors: Record<string, unknown>[];
  models: Record<string, unknown>[];
  syncs: Record<string, unknown>[];
  alert_channels: Record<string, unknown>[];
  alert_rules: Record<string, unknown>[];
  secrets?: Record<string, string>;
};

async function created(api: Api, path: string, data: unknown, status = 201): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

/** A source, a destination with a catalog, a model and a sync, named so their slugs are known. */
async function fill(api: Api): Promise<void> {
  const connector = (name: string, type: string) => ({ connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() } });
  const source = await created(api, "/api/v1/connectors", connector("Warehouse", "source"));
  const destination = await created(api, "/api/v1/connectors", connector("CRM Database", "destination"));
  await created(api, "/api/v1/catalogs", { connector_id: destination, catalog: { streams: [{ name: "contacts" }, { name: "deals" }] } }, 200);
  const model = await created(api, "/api/v1/models", {
    model: { name: "Active users", query: "SELECT id, email FROM users", query_type: "raw_sql", primary_key: "id", connector_id: source },
  });
  await created(api, "/api/v1/syncs", {
    sync: {
      name: "Users to CRM",
      source_id: source,
      destination_id: destination,
      model_id: model,
      schedule_type: "interval",
      sync_interval: 15,
      sync_interval_unit: "minutes",
      sync_mode: "full_refresh",
      stream_name: "contacts",
      configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    },
  }, 200);
}

async function exported(api: Api, query = ""): Promise<{ text: string; doc: Doc }> {
  const res = await api.get(`/api/v1/config/export${query}`);
  expect(res.status(), await res.text()).toBe(200);
  expect(res.headers()["content-type"]).toContain("application/yaml");
  const text = await res.text();
  return { text, doc: parse(text) as Doc };
}

/** The value every reference of the document needs: the test database takes any password. */
const secretsFor = (doc: Doc) => Object.fromEntries(secretRefs(doc.connectors.map((c) => c.configuration)).map((r) => [r.name, PASSWORD]));

async function names(api: Api, kind: "connectors" | "models" | "syncs"): Promise<string[]> {
  const res = await api.get(`/api/v1/${kind}?per_page=100`);
  expect(res.status()).toBe(200);
  return ((await res.json()).data as { attributes: { name: string } }[]).map((d) => d.attributes.name).sort();
}

test.beforeAll(async () => {
  ws = await dataWorkspace("config");
  await fill(ws.admin);
});

test.afterAll(async () => ws.dispose());

test("export: the workspace as YAML, objects by slug, secrets as ${env:NAME} references only", async () => {
  const { text, doc } = await exported(ws.admin);
  expect(doc.version).toBe(1);
  expect(doc.connectors.map((c) => c.slug)).toEqual(["warehouse", "crm-database"]);
  const warehouse = doc.connectors[0];
  expect(warehouse).toMatchObject({ name: "Warehouse", connector_type: "source", connector_name: "Postgresql" });
  expect((warehouse.configuration as { credentials: { password: string } }).credentials.password).toBe("${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}");
  expect(warehouse.catalog).toBeUndefined();
  expect((doc.connectors[1].catalog as { streams: { name: string }[] }).streams.map((s) => s.name)).toEqual(["contacts", "deals"]);
  expect(doc.models).toEqual([expect.objectContaining({ slug: "active-users", connector: "warehouse", primary_key: "id" })]);
  expect(doc.syncs).toEqual([
    expect.objectContaining({ slug: "users-to-crm", source: "warehouse", destination: "crm-database", model: "active-users", sync_interval: 15, write_mode: "upsert" }),
  ]);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain("*****");
  // Only the kinds asked for; an unknown kind is a 400.
  expect(Object.keys((await exported(ws.admin, "?kinds=models")).doc)).toEqual(["version", "models"]);
  await expectError(await ws.admin.get("/api/v1/config/export?kinds=alerts"), 400, "bad_request");
});

test("applying the export unchanged changes nothing, in YAML or JSON", async () => {
  const { text, doc } = await exported(ws.admin);
  const yaml = await ws.admin.post("/api/v1/config/plan", undefined, { "Content-Type": "application/yaml" });
  expect(yaml.status()).toBe(422); // an empty body is no document
  const res = await ws.admin.post("/api/v1/config/apply", text, { "Content-Type": "application/yaml" });
  expect(res.status(), await res.text()).toBe(200);
  expect(await res.json()).toEqual({ applied: true, changes: [], summary: { create: 0, update: 0, delete: 0, unchanged: 4 } });
  const json = await ws.admin.post("/api/v1/config/plan", doc);
  expect((await json.json()).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 4 });
  await expectError(await ws.admin.post("/api/v1/config/plan", "version: [1", { "Content-Type": "text/yaml" }), 400, "bad_request");
  await expectError(await ws.admin.post("/api/v1/config/plan", "<xml/>", { "Content-Type": "application/xml" }), 415, "unsupported_media_type");
  // A file past the inline size is read in a worker thread (lib/config-as-code/yaml-off-thread.ts): same answers.
  const padding = `${"# a comment that only makes the file longer\n".repeat(1000)}`;
  const big = await ws.admin.post("/api/v1/config/plan", padding + text, { "Content-Type": "application/yaml" });
  expect(big.status(), await big.text()).toBe(200);
  expect((await big.json()).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 4 });
  await expectError(await ws.admin.post("/api/v1/config/plan", `${padding}version: [1`, { "Content-Type": "text/yaml" }), 400, "bad_request");
});

test("plan lists creates, updates and deletes by slug without writing; apply writes them and is audit-logged", async () => {
  await created(ws.admin, "/api/v1/connectors", { connector: { name: "Spare", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() } });
  const { doc } = await exported(ws.admin);
  doc.prune = true;
  doc.connectors = doc.connectors.filter((c) => c.slug !== "spare");
  doc.models[0].query = "SELECT id, email FROM users WHERE active";
  doc.models.push({ slug: "all-users", name: "All users", connector: "warehouse", query: "SELECT id FROM users", query_type: "raw_sql", primary_key: "id" });
  doc.syncs[0].sync_interval = 30;
  const before = { connectors: await names(ws.admin, "connectors"), models: await names(ws.admin, "models") };

  const plan = await ws.admin.post("/api/v1/config/plan", doc);
  expect(plan.status(), await plan.text()).toBe(200);
  const body = await plan.json();
  expect(body.applied).toBe(false);
  expect(body.changes.map((c: { kind: string; slug: string; action: string }) => `${c.action} ${c.kind} ${c.slug}`)).toEqual([
    "update models active-users",
    "create models all-users",
    "update syncs users-to-crm",
    "delete connectors spare",
  ]);
  expect(body.changes[0].fields).toEqual([{ field: "query", before: "SELECT id, email FROM users", after: "SELECT id, email FROM users WHERE active" }]);
  expect(body.changes[1].id).toBeNull();
  expect(body.changes[2].fields).toEqual([{ field: "sync_interval", before: 15, after: 30 }]);
  expect(body.summary).toEqual({ create: 1, update: 2, delete: 1, unchanged: 2 });
  expect({ connectors: await names(ws.admin, "connectors"), models: await names(ws.admin, "models") }).toEqual(before);

  const applied = await ws.admin.post("/api/v1/config/apply", doc);
  expect(applied.status(), await applied.text()).toBe(200);
  const result = await applied.json();
  expect(result.applied).toBe(true);
  expect(result.changes.map((c: { action: string }) => c.action)).toEqual(["update", "create", "update", "delete"]);
  expect(typeof result.changes[1].id).toBe("number");
  expect(await names(ws.admin, "connectors")).toEqual(["CRM Database", "Warehouse"]);
  expect(await names(ws.admin, "models")).toEqual(["Active users", "All users"]);
  const logs = await (await ws.admin.get("/api/v1/audit_logs?resource_type=config")).json();
  expect(logs.data[0].attributes.action).toBe("apply");
  // Without prune nothing is deleted: the file's missing model stays.
  const kept = await ws.admin.post("/api/v1/config/plan", { version: 1, models: doc.models.slice(0, 1) });
  expect((await kept.json()).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1 });
});

test("a secret sent for an existing connector is shown changed, never its value", async () => {
  const { doc } = await exported(ws.admin, "?kinds=connectors");
  const plan = await ws.admin.post("/api/v1/config/plan", { ...doc, secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "a-new-secret-value" } });
  const text = await plan.text();
  expect(plan.status(), text).toBe(200);
  expect(JSON.parse(text).changes).toEqual([
    { kind: "connectors", slug: "warehouse", action: "update", id: expect.any(Number), fields: [{ field: "configuration.credentials.password", secret: true }] },
  ]);
  expect(text).not.toContain("a-new-secret-value");
  // A new connector's secret, even written literally in the file, is marked, never shown.
  const literal = { slug: "literal", name: "Literal", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration({ credentials: { auth_type: "username/password", username: "postgres", password: "literal-pw" } }) };
  const created = await ws.admin.post("/api/v1/config/plan", { version: 1, connectors: [literal] });
  const createdText = await created.text();
  expect(created.status(), createdText).toBe(200);
  expect(JSON.parse(createdText).changes[0].fields).toContainEqual({ field: "configuration.credentials.password", secret: true });
  expect(createdText).not.toContain("literal-pw");
});

test("${env:DATABASE_URL} is never resolved from the server's environment", async () => {
  const newOne = {
    version: 1,
    connectors: [{ slug: "thief", name: "Thief", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration({ credentials: { auth_type: "username/password", username: "postgres", password: "${env:DATABASE_URL}" } }) }],
  };
  const body = await expectError(await ws.admin.post("/api/v1/config/apply", newOne), 422, "validation_failed");
  expect(body.message).toContain('connector "thief"');
  expect(fieldErrors(body).map((e) => e.path)).toEqual(["connectors.0.configuration.credentials.password"]);
  // In a field that is not a secret, an existing connector has no stored value to keep either.
  const { doc } = await exported(ws.admin, "?kinds=connectors");
  (doc.connectors[0].configuration as Record<string, unknown>).database = "${env:DATABASE_URL}";
  const existing = await expectError(await ws.admin.post("/api/v1/config/plan", doc), 422, "validation_failed");
  expect(fieldErrors(existing).map((e) => e.path)).toEqual(["connectors.0.configuration.database"]);
  expect(await names(ws.admin, "connectors")).not.toContain("Thief");
});

test("an error anywhere writes nothing: 422 naming the object and field", async () => {
  const before = await names(ws.admin, "connectors");
  const { doc } = await exported(ws.admin);
  doc.connectors.push({ slug: "extra", name: "Extra", connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration(), catalog: { streams: [{ name: "t" }] } });
  doc.syncs[0].stream_name = "no_such_stream";
  const body = await expectError(await ws.admin.post("/api/v1/config/apply", { ...doc, secrets: secretsFor(doc) }), 422, "validation_failed");
  expect(body.message).toMatch(/^Updating sync "users-to-crm": Validation failed: syncs\.0\.stream_name: "no_such_stream" is not a stream/);
  expect(fieldErrors(body).map((e) => e.path)).toEqual(["syncs.0.stream_name"]);
  expect(await names(ws.admin, "connectors")).toEqual(before);
  // A slug that points nowhere is refused before anything runs.
  doc.syncs[0].stream_name = "contacts";
  doc.syncs[0].model = "nowhere";
  const refs = await expectError(await ws.admin.post("/api/v1/config/plan", { ...doc, secrets: secretsFor(doc) }), 422, "validation_failed");
  expect(fieldErrors(refs).map((e) => e.path)).toEqual(["syncs.0.model"]);
});

test("permissions: a Viewer may export but not plan or apply changes; a role exports only what it may read", async ({ request }) => {
  const { doc } = await exported(ws.viewer);
  doc.models[0].name = "Renamed by a viewer";
  doc.connectors.push({ slug: "v", name: "V", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() });
  for (const path of ["/api/v1/config/plan", "/api/v1/config/apply"]) {
    const body = await expectError(await ws.viewer.post(path, { ...doc, secrets: secretsFor(doc) }), 403, "forbidden");
    expect(body.message).toContain("create connectors");
    expect(body.message).toContain("update models");
  }
  expect(await names(ws.admin, "models")).not.toContain("Renamed by a viewer");
  // A custom role that reads connectors only.
  const role = await created(ws.admin, "/enterprise/api/v1/roles", {
    role: { role_name: `connectors-only-${Date.now()}`, policies: { permissions: { connector: { create: false, read: true, update: false, delete: false } } } },
  });
  const rolesRes = await (await ws.admin.get("/enterprise/api/v1/roles")).json();
  const roleName = (rolesRes.data as { id: string; attributes: { role_name: string } }[]).find((r) => Number(r.id) === role)!.attributes.role_name;
  const member = await memberWithRole(request, { id: ws.workspaceId, admin: ws.admin, roles: { [roleName]: role } }, roleName);
  const refused = await expectError(await member.api.get("/api/v1/config/export"), 403, "forbidden");
  expect(refused.message).toContain("models, syncs");
  expect((await exported(member.api, "?kinds=connectors")).doc.connectors).toHaveLength(2);
});

test("round trip: export, apply to a new workspace, export again gives the same YAML", async () => {
  // Alert channels (a Slack URL is a secret), a rule by sync and channel slugs, and a run_after chain.
  const slackUrl = "http://127.0.0.1:9/services/T000/B000/e2eSeCrEt";
  const slack = await created(ws.admin, "/api/v1/alert_channels", { alert_channel: { name: "Ops Slack", channel_type: "slack", url: slackUrl } });
  const mail = await created(ws.admin, "/api/v1/alert_channels", { alert_channel: { name: "On call", channel_type: "email", recipients: ["oncall@example.com"] } });
  const syncs = (await (await ws.admin.get("/api/v1/syncs?per_page=100")).json()).data as { id: string; attributes: { name: string } }[];
  const first = Number(syncs.find((x) => x.attributes.name === "Users to CRM")!.id);
  await created(ws.admin, "/api/v1/alert_rules", { alert_rule: { name: "CRM failing", sync_id: first, condition: "run_failed", channel_ids: [slack, mail] } });
  const start = await exported(ws.admin);
  const follower = { ...start.doc.syncs[0], slug: "follow-up", name: "Follow up", schedule_type: "manual", sync_interval: null, sync_interval_unit: null, run_after: ["users-to-crm"] };
  const added = await ws.admin.post("/api/v1/config/apply", { version: 1, syncs: [follower] });
  expect(added.status(), await added.text()).toBe(200);
  const followerId = (await added.json()).changes[0].id as number;
  expect((await (await ws.admin.get(`/api/v1/syncs/${followerId}/run_after`)).json()).data.attributes).toMatchObject({ sync_ids: [first] });

  const { text, doc } = await exported(ws.admin);
  expect(text).not.toContain("e2eSeCrEt");
  expect(doc.alert_channels).toEqual([
    { slug: "ops-slack", name: "Ops Slack", channel_type: "slack", url: "${env:DATASYNC_SECRET_OPS_SLACK_URL}" },
    { slug: "on-call", name: "On call", channel_type: "email", recipients: ["oncall@example.com"] },
  ]);
  expect(doc.alert_rules).toEqual([
    { slug: "crm-failing", name: "CRM failing", sync: "users-to-crm", condition: "run_failed", threshold: null, channels: ["ops-slack", "on-call"], enabled: true },
  ]);
  expect(doc.syncs.map((x) => [x.slug, x.run_after])).toEqual([
    ["users-to-crm", []],
    ["follow-up", ["users-to-crm"]],
  ]);
  // A cycle is the run_after endpoint's 422, naming the entry; nothing is written.
  const cyclic = structuredClone(doc);
  cyclic.syncs[0].run_after = ["follow-up"];
  const cycle = await expectError(await ws.admin.post("/api/v1/config/apply", { ...cyclic, secrets: secretsFor(doc) }), 422, "validation_failed");
  expect(cycle.message).toMatch(/^Updating sync "users-to-crm": Validation failed: syncs\.0\.run_after: would make a cycle: /);
  expect(fieldErrors(cycle).map((e) => e.path)).toEqual(["syncs.0.run_after"]);

  const copy = await dataWorkspace("config-copy");
  try {
    // The Slack URL is needed by reference, like a connector's secret.
    const missing = await expectError(await copy.admin.post("/api/v1/config/apply", { ...doc, secrets: secretsFor(doc) }), 422, "validation_failed");
    expect(fieldErrors(missing).map((e) => e.path)).toEqual(["alert_channels.0.url"]);
    const res = await copy.admin.post("/api/v1/config/apply", { ...doc, secrets: { ...secretsFor(doc), DATASYNC_SECRET_OPS_SLACK_URL: slackUrl } });
    const body = await res.text();
    expect(res.status(), body).toBe(200);
    expect(body).not.toContain("e2eSeCrEt");
    expect(JSON.parse(body).summary).toEqual({ create: 9, update: 0, delete: 0, unchanged: 0 });
    expect((await exported(copy.admin)).text).toBe(text);
    const channels = (await (await copy.admin.get("/api/v1/alert_channels")).json()).data as { attributes: { name: string; url: string | null } }[];
    expect(channels.find((c) => c.attributes.name === "Ops Slack")?.attributes.url).toBe("*************");
  } finally {
    await copy.dispose();
  }
});
