// The syncs resource over real HTTP: create and get, schedule rules, references, null policy.
// Update, list, enable and soft delete: syncs-lifecycle.spec.ts.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, ISO, pgConfiguration, unique } from "../support/data";
import { syncsFixture, type SyncsFixture } from "../support/syncs-fixture";

let f: SyncsFixture;
test.beforeAll(async () => {
  f = await syncsFixture();
});
test.afterAll(async () => {
  await f?.ws.dispose();
});

test("POST /syncs returns the bare resource (200); GET /syncs/{id} too", async () => {
  const created = await f.createSync();
  // The bare resource, plus `data` repeating it for the reference's console (issue 13.9).
  expect(Object.keys(created).sort()).toEqual(["attributes", "data", "id", "type"]);
  f.expectSync(created);
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

  const shown = await f.ws.viewer.get(`/api/v1/syncs/${created.id}`);
  expect(shown.status()).toBe(200);
  const body = await shown.json();
  expect(Object.keys(body).sort()).toEqual(["attributes", "data", "id", "type"]);
  f.expectSync(body);
});

test("schedule rules: interval, cron, automated, manual; unused fields cleared", async () => {
  const noUnit = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ sync_interval_unit: null })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(noUnit)).toEqual([expect.objectContaining({ path: "sync.sync_interval_unit" })]);
  const zero = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ sync_interval: 0 })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(zero)).toEqual([expect.objectContaining({ path: "sync.sync_interval" })]);
  const cronBad = await expectError(
    await f.ws.admin.post(
      "/api/v1/syncs",
      f.syncBody({ schedule_type: "cron_expression", cron_expression: "61 * * * *" }),
    ),
    422,
    "validation_failed",
  );
  expect(fieldErrors(cronBad)).toEqual([expect.objectContaining({ path: "sync.cron_expression" })]);
  const cronSix = await expectError(
    await f.ws.admin.post(
      "/api/v1/syncs",
      f.syncBody({ schedule_type: "cron_expression", cron_expression: "0 0 * * * *" }),
    ),
    422,
    "validation_failed",
  );
  expect(cronSix.message).toContain("5 fields");
  const tz = await expectError(
    await f.ws.admin.post(
      "/api/v1/syncs",
      f.syncBody({ schedule_type: "cron_expression", cron_expression: "0 * * * *", timezone: "Mars/Base" }),
    ),
    422,
    "validation_failed",
  );
  expect(fieldErrors(tz)).toEqual([expect.objectContaining({ path: "sync.timezone" })]);
  const type = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ schedule_type: "hourly" })),
    422,
    "validation_failed",
  );
  expect(type.message).toContain("manual, interval, cron_expression, automated");

  // The unit alone is no conflict (the reference console always sends one): it is cleared.
  const cron = await f.createSync({
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
  const manual = await f.createSync({ schedule_type: "manual", sync_interval: 0 });
  expect(manual.attributes).toMatchObject({
    sync_interval: null,
    sync_interval_unit: null,
    cron_expression: null,
    next_run_at: null,
  });
  const automated = await f.createSync({ schedule_type: "automated" });
  expect(automated.attributes).toMatchObject({
    schedule_type: "automated",
    sync_interval: 15,
    cron_expression: null,
  });
  expect(automated.attributes.next_run_at).toMatch(ISO);
});

test("references: workspace, connector types, model of the source, catalog stream", async ({ request }) => {
  const swapped = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ source_id: f.destinationId, destination_id: f.sourceId })),
    422,
    "validation_failed",
  );
  const paths = fieldErrors(swapped).map((e) => e.path);
  expect(paths).toEqual(expect.arrayContaining(["sync.source_id", "sync.destination_id"]));
  const stream = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ stream_name: "nope" })),
    422,
    "validation_failed",
  );
  expect(stream.message).toContain("contacts, deals");
  const missing = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ model_id: 99999999 })),
    422,
    "validation_failed",
  );
  expect(fieldErrors(missing)).toEqual([expect.objectContaining({ path: "sync.model_id" })]);

  // A destination without a catalog is refused with a pointer to discover.
  const bare = await f.post("/api/v1/connectors", {
    connector: {
      name: unique("bare"),
      connector_type: "destination",
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  const noCatalog = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ destination_id: Number(bare.data.id) })),
    422,
    "validation_failed",
  );
  expect(noCatalog.message).toContain("catalog");

  // Another workspace cannot use these connectors.
  const other = await dataWorkspace("syncs-other", request);
  await expectError(await other.admin.post("/api/v1/syncs", f.syncBody()), 422, "validation_failed");
  const created = await f.createSync();
  await expectError(await other.admin.get(`/api/v1/syncs/${created.id}`), 404, "not_found");

  const mapping = await expectError(
    await f.ws.admin.post(
      "/api/v1/syncs",
      f.syncBody({ configuration: [{ from: "{{ x", to: "a", mapping_type: "template" }] }),
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
  const created = await f.createSync({ configuration });
  expect(created.attributes.configuration).toEqual(configuration);
  const bad = await expectError(
    await f.ws.admin.post("/api/v1/syncs", f.syncBody({ configuration: [{ from: "email", to: "email", mapping_type: "standard", null_policy: "keep" }] })),
    422,
    "validation_failed",
  );
  const errors = fieldErrors(bad);
  expect(errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^sync\.configuration/) })]);
  expect(errors[0].message).toContain('"skip" (leave the field out, so the destination keeps its value)');
});
