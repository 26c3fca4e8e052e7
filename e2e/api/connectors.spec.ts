import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, ensureTestDatabase, expectLinks, ISO, MASK, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
const table = unique("e2e_conn");

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text NOT NULL, score numeric)`);
  await sql(`INSERT INTO ${table} SELECT g, 'user' || g || '@example.com', g * 1.5 FROM generate_series(1, 80) g`);
  ws = await dataWorkspace("connectors");
});
test.afterAll(async () => {
  await ws?.dispose();
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

async function createConnector(type: "source" | "destination", name = unique(type)) {
  const res = await ws.admin.post("/api/v1/connectors", {
    connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration({ credentials: { auth_type: "username/password", username: "postgres", password: "s3cret-pass" } }) },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data;
}

function expectConnector(c: Record<string, unknown> & { attributes: Record<string, unknown> }) {
  expect(typeof c.id).toBe("string");
  expect(c.type).toBe("connectors");
  const a = c.attributes;
  expect(typeof a.name).toBe("string");
  expect(["source", "destination"]).toContain(a.connector_type);
  expect(a.connector_name).toBe("Postgresql");
  expect(a.category).toBe("data");
  expect(a.workspace_id).toBe(ws.workspaceId);
  expect(typeof a.icon).toBe("string");
  expect(a.created_at).toMatch(ISO);
  expect(a.updated_at).toMatch(ISO);
  expect((a.configuration as { credentials: { password: string } }).credentials.password).toBe(MASK);
}

test("POST /connectors creates a connector with masked secrets; GET shows it", async () => {
  const created = await createConnector("source");
  expectConnector(created);
  expect(created.attributes.configuration.host).toBe("127.0.0.1");
  expect(created.attributes.description).toBe("");

  const shown = await ws.viewer.get(`/api/v1/connectors/${created.id}`);
  expect(shown.status()).toBe(200);
  const body = await shown.json();
  expect(Object.keys(body)).toEqual(["data"]);
  expectConnector(body.data);
  expect(JSON.stringify(body)).not.toContain("s3cret-pass");
});

test("POST /connectors validates the configuration and the name", async () => {
  const bad = await expectError(
    await ws.admin.post("/api/v1/connectors", {
      connector: { name: unique("bad"), connector_type: "source", connector_name: "Postgresql", configuration: { host: "" } },
    }),
    422,
    "validation_failed",
  );
  const paths = fieldErrors(bad).map((e) => e.path);
  expect(paths).toEqual(expect.arrayContaining(["connector.configuration.database", "connector.configuration.credentials", "connector.configuration.host"]));

  const unknown = await expectError(
    await ws.admin.post("/api/v1/connectors", { connector: { name: "x", connector_type: "source", connector_name: "Oracle9", configuration: {} } }),
    422,
    "validation_failed",
  );
  expect(unknown.message).toContain("Oracle9");

  const type = await expectError(
    await ws.admin.post("/api/v1/connectors", { connector: { name: "x", connector_type: "sink", connector_name: "Postgresql", configuration: {} } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(type)).toEqual([expect.objectContaining({ path: "connector.connector_type" })]);
  await expectError(await ws.admin.post("/api/v1/connectors", {}), 422, "validation_failed");

  const name = unique("dup");
  await createConnector("source", name);
  const dup = await expectError(
    await ws.admin.post("/api/v1/connectors", { connector: { name, connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() } }),
    409,
    "conflict",
  );
  expect(dup.message).toContain(name);
  // Same name as a destination is a different connector.
  await createConnector("destination", name);
});

test("GET /connectors paginates, filters and searches", async () => {
  const marker = unique("findme");
  await createConnector("destination", `${marker}_dest`);
  const res = await ws.viewer.get("/api/v1/connectors?type=destination&category=data&per_page=2");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expectLinks(body.links);
  expect(body.links.prev).toBeNull();
  expect(body.data.length).toBeLessThanOrEqual(2);
  body.data.forEach(expectConnector);
  expect(body.data.every((c: { attributes: { connector_type: string } }) => c.attributes.connector_type === "destination")).toBe(true);
  expect(body.meta).toMatchObject({ page: 1, per_page: 2 });

  const found = await (await ws.viewer.get(`/api/v1/connectors?search=${marker.toUpperCase()}`)).json();
  expect(found.data.map((c: { attributes: { name: string } }) => c.attributes.name)).toEqual([`${marker}_dest`]);

  const bad = await expectError(await ws.viewer.get("/api/v1/connectors?type=both"), 400, "bad_request");
  expect(bad.message).toContain("source, destination");
  const cat = await expectError(await ws.viewer.get("/api/v1/connectors?category=x"), 400, "bad_request");
  expect(cat.message).toContain("data, ai_ml");
  await expectError(await ws.viewer.get("/api/v1/connectors?page=0"), 400, "bad_request");
});

test("GET /connectors sorts by an allowed field either way and refuses others", async () => {
  const prefix = unique("sorted");
  await createConnector("source", `${prefix}_b`);
  await createConnector("source", `${prefix}_a`);
  const names = async (sort: string) =>
    ((await (await ws.admin.get(`/api/v1/connectors?search=${prefix}&sort=${sort}`)).json()).data as { attributes: { name: string } }[]).map(
      (c) => c.attributes.name,
    );
  expect(await names("name")).toEqual([`${prefix}_a`, `${prefix}_b`]);
  expect(await names("-name")).toEqual([`${prefix}_b`, `${prefix}_a`]);
  await expectError(await ws.admin.get("/api/v1/connectors?sort=configuration_encrypted"), 400, "bad_request");
});

test("PUT /connectors/{id} keeps masked secrets and validates", async () => {
  const created = await createConnector("source");
  const config = { ...created.attributes.configuration, database: "test" };
  const res = await ws.admin.put(`/api/v1/connectors/${created.id}`, { connector: { name: `${created.attributes.name}_renamed`, configuration: config, description: "d" } });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expectConnector(body.data);
  expect(body.data.attributes.name).toBe(`${created.attributes.name}_renamed`);
  expect(body.data.attributes.description).toBe("d");

  // The masked password sent back still works: the stored secret was kept (discover connects with it).
  const discovered = await ws.admin.get(`/api/v1/connectors/${created.id}/discover`);
  expect(discovered.status(), await discovered.text()).toBe(200);

  const invalid = await expectError(
    await ws.admin.put(`/api/v1/connectors/${created.id}`, { connector: { configuration: { ...config, port: "not-a-port" } } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(invalid).map((e) => e.path)).toContain("connector.configuration.port");
  await expectError(
    await ws.admin.put(`/api/v1/connectors/${created.id}`, { connector: { connector_type: "destination" } }),
    422,
    "validation_failed",
  );
  await expectError(await ws.viewer.put(`/api/v1/connectors/${created.id}`, { connector: { name: "v" } }), 403, "forbidden");
  await expectError(await ws.admin.put(`/api/v1/connectors/999999`, { connector: { name: "v" } }), 404, "not_found");
});

test("GET /connectors/{id}/discover stores and returns the catalog", async () => {
  const source = await createConnector("source");
  const res = await ws.viewer.get(`/api/v1/connectors/${source.id}/discover?refresh=true`);
  expect(res.status(), await res.text()).toBe(200);
  const { data } = await res.json();
  expect(typeof data.id).toBe("string");
  expect(data.type).toBe("catalogs");
  expect(data.attributes.connector_id).toBe(Number(source.id));
  expect(data.attributes.workspace_id).toBe(ws.workspaceId);
  expect(typeof data.attributes.catalog_hash).toBe("string");
  const stream = data.attributes.catalog.streams.find((s: { name: string }) => s.name === table);
  expect(stream.json_schema.properties).toHaveProperty("email");

  const again = await (await ws.viewer.get(`/api/v1/connectors/${source.id}/discover`)).json();
  expect(again.data.id).toBe(data.id);
  await expectError(await ws.viewer.get(`/api/v1/connectors/${source.id}/discover?refresh=maybe`), 400, "bad_request");
});

test("POST /connectors/{id}/query_source previews rows of a source", async () => {
  const source = await createConnector("source");
  // A Viewer may read the connector but not run SQL with its credentials (model.create is needed).
  const viewer = await expectError(await ws.viewer.post(`/api/v1/connectors/${source.id}/query_source`, { query: "SELECT 1" }), 403, "forbidden");
  expect(viewer.message).toBe("Your role (Viewer) may not run queries on sources.");
  const res = await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, { query: `SELECT id, email FROM ${table} ORDER BY id` });
  expect(res.status(), await res.text()).toBe(200);
  const { data } = await res.json();
  expect(data).toHaveLength(50);
  expect(data[0]).toEqual({ id: 1, email: "user1@example.com" });
  const limited = await (await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, { query: `SELECT * FROM ${table}`, limit: 3 })).json();
  expect(limited.data).toHaveLength(3);

  const paging = await expectError(
    await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, { query: `SELECT * FROM ${table} LIMIT 5` }),
    422,
    "validation_failed",
  );
  expect(paging.message).toMatch(/LIMIT or OFFSET/);
  await expectError(await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, { query: `SELECT * FROM ${table} OFFSET 5` }), 422, "validation_failed");
  const syntax = await expectError(await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, { query: "SELEC 1" }), 422, "validation_failed");
  expect(syntax.message).toMatch(/must be a SELECT/);
  await expectError(await ws.admin.post(`/api/v1/connectors/${source.id}/query_source`, {}), 422, "validation_failed");

  const destination = await createConnector("destination");
  const dest = await expectError(await ws.admin.post(`/api/v1/connectors/${destination.id}/query_source`, { query: "SELECT 1" }), 422, "validation_failed");
  expect(dest.message).toContain("destination");
});

test("DELETE /connectors/{id} is 204, then 404; a model that uses it goes with it", async () => {
  const source = await createConnector("source");
  const model = await ws.admin.post("/api/v1/models", {
    model: { name: "m", query: `SELECT * FROM ${table}`, query_type: "raw_sql", primary_key: "id", connector_id: Number(source.id) },
  });
  expect(model.status(), await model.text()).toBe(201);
  const modelId = (await model.json()).data.id;
  await expectError(await ws.viewer.delete(`/api/v1/connectors/${source.id}`), 403, "forbidden");

  const del = await ws.admin.delete(`/api/v1/connectors/${source.id}`);
  expect(del.status()).toBe(204);
  expect(await del.text()).toBe("");
  const gone = await expectError(await ws.admin.get(`/api/v1/connectors/${source.id}`), 404, "not_found");
  expect(gone.message).toContain(`Connector ${source.id}`);
  await expectError(await ws.admin.get(`/api/v1/models/${modelId}`), 404, "not_found");
});

test("connectors of another workspace are 404; bad ids 400; no token 401", async ({ request }) => {
  const other = await dataWorkspace("connectors-other", request);
  const mine = await createConnector("source");
  await expectError(await other.admin.get(`/api/v1/connectors/${mine.id}`), 404, "not_found");
  await expectError(await other.admin.delete(`/api/v1/connectors/${mine.id}`), 404, "not_found");
  await expectError(await ws.admin.get("/api/v1/connectors/abc"), 400, "bad_request");
  await expectError(await request.get("/api/v1/connectors"), 401, "unauthorized");
  await expectError(
    await ws.viewer.post("/api/v1/connectors", { connector: { name: "v", connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() } }),
    403,
    "forbidden",
  );
});
