// The workspace both syncs specs (syncs.spec.ts, syncs-lifecycle.spec.ts) start from: a PostgreSQL
// source and destination, a destination catalog of two streams and a model, with the helpers that
// create and check syncs there.
import { expect } from "@playwright/test";
import { dataWorkspace, ISO, pgConfiguration, unique } from "./data";

export type SyncsFixture = Awaited<ReturnType<typeof syncsFixture>>;

export async function syncsFixture() {
  const ws = await dataWorkspace("syncs");
  /** POSTs and expects `status` (201 unless said), answering the body. */
  async function post(path: string, data: unknown, status = 201) {
    const res = await ws.admin.post(path, data);
    expect(res.status(), await res.text()).toBe(status);
    return res.json();
  }
  const connector = (type: string) => ({
    connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const sourceId = Number((await post("/api/v1/connectors", connector("source"))).data.id);
  const destinationId = Number((await post("/api/v1/connectors", connector("destination"))).data.id);
  await post("/api/v1/catalogs", { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }, { name: "deals" }] } }, 200);
  const model = { name: "users", query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId };
  const modelId = Number((await post("/api/v1/models", { model })).data.id);

  /** A create body with every required field, `overrides` on top. */
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

  /** The members every sync answer carries. */
  function expectSync(s: { id: unknown; type: unknown; attributes: Record<string, unknown> }) {
    expect(typeof s.id).toBe("string");
    expect(s.type).toBe("syncs");
    const a = s.attributes;
    expect(a.source_id).toBe(sourceId);
    expect(a.destination_id).toBe(destinationId);
    expect(a.model_id).toBe(modelId);
    for (const key of ["name", "description", "schedule_type", "sync_mode", "stream_name", "status", "timezone"]) expect(typeof a[key]).toBe("string");
    expect(typeof a.detect_deletes).toBe("boolean");
    expect(a.created_at).toMatch(ISO);
    expect(a.updated_at).toMatch(ISO);
    expect(a.source).toMatchObject({ id: sourceId, name: expect.any(String), connector_name: "Postgresql", icon: expect.any(String) });
    expect(a.destination).toMatchObject({ id: destinationId, connector_name: "Postgresql" });
    // The model summary grew the reference's members (issue 13.7; e2e/api/multiwoven-syncs.spec.ts checks them).
    expect(a.model).toMatchObject({ id: modelId, name: "users" });
    expect(a).toHaveProperty("last_run");
    expect(a).toHaveProperty("current_cursor_field");
  }

  /** Creates a sync (200), answering the body. */
  async function createSync(overrides: Record<string, unknown> = {}) {
    const res = await ws.admin.post("/api/v1/syncs", syncBody(overrides));
    expect(res.status(), await res.text()).toBe(200);
    return res.json();
  }

  return { ws, sourceId, destinationId, modelId, post, syncBody, expectSync, createSync };
}
