// The syncs resource over real HTTP: create and get, schedule rules, references, null policy.
// Update, list, enable and soft delete: syncs-lifecycle.spec.ts.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, ISO, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;
let modelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  ws = await dataWorkspace("syncs");
  const connector = (type: string) => ({
    connector: {
      name: unique(type),
      connector_type: type,
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  sourceId = Number((await post("/api/v1/connectors", connector("source"))).data.id);
  destinationId = Number((await post("/api/v1/connectors", connector("destination"))).data.id);
  await post(
    "/api/v1/catalogs",
    { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }, { name: "deals" }] } },
    200,
  );
  modelId = Number(
    (
      await post("/api/v1/models", {
        model: {
          name: "users",
          query: "SELECT * FROM users",
          query_type: "raw_sql",
          primary_key: "id",
          connector_id: sourceId,
        },
      })
    ).data.id,
  );
});

const syncBody = (overrides: Record<string, unknown> = {}) => ({
  sync: {
    name: unique("sync"),
    source_id: sourceId,
    destination_id: destinationId,
    model_id: modelId,
    schedule_type: "interval",
    sync_interval: 15,
    sync_interval_unit: "minutes",
    sync_mode: "incremental",
    stream_name: "contacts",
    cursor_field: "updated_at",
    configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    ...overrides,
  },
});

function expectSync(s: { id: unknown; type: unknown; attributes: Record<string, unknown> }) {
  expect(typeof s.id).toBe("string");
  expect(s.type).toBe("syncs");
  const a = s.attributes;
  expect(a.source_id).toBe(sourceId);
  expect(a.destination_id).toBe(destinationId);
  expect(a.model_id).toBe(modelId);
  for (const key of [
    "name",
    "description",
    "schedule_type",
    "sync_mode",
    "stream_name",
    "status",
    "timezone",
  ])
    expect(typeof a[key]).toBe("string");
  expect(typeof a.detect_deletes).toBe("boolean");
  expect(a.created_at).toMatch(ISO);
  expect(a.updated_at).toMatch(ISO);
  expect(a.source).toMatchObject({
    id: sourceId,
    name: expect.any(String),
    connector_name: "Postgresql",
    icon: expect.any(String),
  });
  expect(a.destination).toMatchObject({ id: destinationId, connector_name: "Postgresql" });
  // The model summary grew the reference's members (issue 13.7; e2e/api/multiwoven-syncs.spec.ts checks them).
  expect(a.model).toMatchObject({ id: modelId, name: "users" });
  expect(a).toHaveProperty("last_run");
  expect(a).toHaveProperty("current_cursor_field");
}

async function createSync(overrides: Record<string, unknown> = {}) {
  const res = await ws.admin.post("/api/v1/syncs", syncBody(overrides));
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

test.afterAll(async () => {
  await ws?.dispose();
});

test("POST /syncs returns the bare resource (200); GET /syncs/{id} too", async () => {
  const created = await createSync();
  // The bare resource, plus `data` repeating it for the reference's console (issue 13.9).
  expect(Object.keys(created).sort()).toEqual(["attributes", "data", "id", "type"]);
  expectSync(created);
  expect(created.attributes).toMatchObject({
    status: "pending",
    schedule_type: "interval",
    sync_interval: 15,
    sync_interval_unit: "minutes",
    cron_expression: null,
    cursor_field: "updated_at",
    last_run: null,
  });
  expect(created.attributes.next_run_at).toMatch(ISO);

  const shown = await ws.viewer.get(`/api/v1/syncs/${created.id}`);
  expect(shown.status()).toBe(200);
  const body = await shown.json();
  expect(Object.keys(body).sort()).toEqual(["attributes", "data", "id", "type"]);
  expectSync(body);
});

test("schedule rules: interval, cron, automated, manual; unused fields cleared", async () => {
  const noUnit = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ sync_interval_unit: null })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(noUnit)).toEqual([expect.objectContaining({ path: "sync.sync_interval_unit" })]);
  const zero = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ sync_interval: 0 })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(zero)).toEqual([expect.objectContaining({ path: "sync.sync_interval" })]);
  const cronBad = await expectError(
    await ws.admin.post(
      "/api/v1/syncs",
      syncBody({ schedule_type: "cron_expression", cron_expression: "61 * * * *" }),
    ),
    422,
    "validation_failed",
  );
  expect(fieldErrors(cronBad)).toEqual([expect.objectContaining({ path: "sync.cron_expression" })]);
  const cronSix = await expectError(
    await ws.admin.post(
      "/api/v1/syncs",
      syncBody({ schedule_type: "cron_expression", cron_expression: "0 0 * * * *" }),
    ),
    422,
    "validation_failed",
  );
  expect(cronSix.message).toContain("5 fields");
  const tz = await expectError(
    await ws.admin.post(
      "/api/v1/syncs",
      syncBody({ schedule_type: "cron_expression", cron_expression: "0 * * * *", timezone: "Mars/Base" }),
    ),
    422,
    "validation_failed",
  );
  expect(fieldErrors(tz)).toEqual([expect.objectContaining({ path: "sync.timezone" })]);
  const type = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ schedule_type: "hourly" })),
    422,
    "validation_failed",
  );
  expect(type.message).toContain("manual, interval, cron_expression, automated");

  // The unit alone is no conflict (the reference console always sends one): it is cleared.
  const cron = await createSync({
    schedule_type: "cron_expression",
    cron_expression: "30 2 * * 1",
    timezone: "Europe/Paris",
    sync_interval: null,
  });
  expect(cron.attributes).toMatchObject({
    cron_expression: "30 2 * * 1",
    timezone: "Europe/Paris",
    sync_interval: null,
    sync_interval_unit: null,
  });
  expect(cron.attributes.next_run_at).toMatch(ISO);
  const manual = await createSync({ schedule_type: "manual", sync_interval: 0 });
  expect(manual.attributes).toMatchObject({
    sync_interval: null,
    sync_interval_unit: null,
    cron_expression: null,
    next_run_at: null,
  });
  const automated = await createSync({ schedule_type: "automated" });
  expect(automated.attributes).toMatchObject({
    schedule_type: "automated",
    sync_interval: 15,
    cron_expression: null,
  });
  expect(automated.attributes.next_run_at).toMatch(ISO);
});

test("references: workspace, connector types, model of the source, catalog stream", async ({ request }) => {
  const swapped = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ source_id: destinationId, destination_id: sourceId })),
    422,
    "validation_failed",
  );
  const paths = fieldErrors(swapped).map((e) => e.path);
  expect(paths).toEqual(expect.arrayContaining(["sync.source_id", "sync.destination_id"]));
  const stream = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ stream_name: "nope" })),
    422,
    "validation_failed",
  );
  expect(stream.message).toContain("contacts, deals");
  const missing = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ model_id: 99999999 })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(missing)).toEqual([expect.objectContaining({ path: "sync.model_id" })]);

  // A destination without a catalog is refused with a pointer to discover.
  const bare = await post("/api/v1/connectors", {
    connector: {
      name: unique("bare"),
      connector_type: "destination",
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  const noCatalog = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ destination_id: Number(bare.data.id) })),
    422,
    "validation_failed",
  );
  expect(noCatalog.message).toContain("catalog");

  // Another workspace cannot use these connectors.
  const other = await dataWorkspace("syncs-other", request);
  await expectError(await other.admin.post("/api/v1/syncs", syncBody()), 422, "validation_failed");
  const created = await createSync();
  await expectError(await other.admin.get(`/api/v1/syncs/${created.id}`), 404, "not_found");

  const mapping = await expectError(
    await ws.admin.post(
      "/api/v1/syncs",
      syncBody({ configuration: [{ from: "{{ x", to: "a", mapping_type: "template" }] }),
    ),
    422,
    "validation_failed",
  );
  expect(fieldErrors(mapping)).toEqual([expect.objectContaining({ path: "sync.configuration" })]);
});

test("a mapping's null_policy is kept, and an unknown one is a 422 that says what to use", async () => {
  const configuration = [
    { from: "email", to: "email", mapping_type: "standard", null_policy: "skip" },
    { from: "name", to: "name", mapping_type: "standard", null_policy: "write" },
  ];
  const created = await createSync({ configuration });
  expect(created.attributes.configuration).toEqual(configuration);
  const bad = await expectError(
    await ws.admin.post("/api/v1/syncs", syncBody({ configuration: [{ from: "email", to: "email", mapping_type: "standard", null_policy: "keep" }] })),
    422,
    "validation_failed",
  );
  const errors = fieldErrors(bad);
  expect(errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^sync\.configuration/) })]);
  expect(errors[0].message).toContain('"skip" (leave the field out, so the destination keeps its value)');
});
