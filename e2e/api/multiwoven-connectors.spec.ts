// Issue 13: the reference system's own console (Multiwoven ui/, v0.124) works against our connector
// endpoints unmodified. Each test asserts the shape the reference's controllers, serializers and
// console code produce or read, citing the file; the API contract's members stay beside them.
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { BASE_URL, expectError } from "../support/api";
import { dataWorkspace, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: string;
let destinationId: string;
const table = unique("mw_people");

test.beforeAll(async () => {
  ws = await dataWorkspace("mw-connectors");
  await sql(`CREATE TABLE IF NOT EXISTS ${table} (id integer PRIMARY KEY, email text, updated_at timestamptz)`);
  const source = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("src"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(source.status(), await source.text()).toBe(201);
  sourceId = (await source.json()).data.id;
  const destination = await ws.admin.post("/api/v1/connectors", {
    connector: {
      name: unique("hook"),
      connector_type: "destination",
      connector_name: "Http",
      configuration: { destination_url: "https://hooks.example.com/in", headers: { Authorization: "Bearer hook-secret" } },
    },
  });
  expect(destination.status(), await destination.text()).toBe(201);
  destinationId = (await destination.json()).data.id;
});

test.afterAll(async () => {
  await sql(`DROP TABLE IF EXISTS ${table}`);
  await ws?.dispose();
});

type Named = { id: string; attributes: { connector_type: string; name: string } };

// ui/src/views/Connectors/Sources/SourcesList/SourcesList.tsx calls getUserConnectors('Source'),
// which ui/src/services/connectors.ts sends as GET /connectors?type=Source; the reference's
// connectors_controller.rb downcases it. Definitions are fetched with type=source/destination.
test("13.2 GET /connectors?type=Source and connector_definitions filters are case-insensitive", async () => {
  const sources = await ws.viewer.get("/api/v1/connectors?type=Source");
  expect(sources.status(), await sources.text()).toBe(200);
  const sourceRows = (await sources.json()).data as Named[];
  expect(sourceRows.map((c) => c.id)).toEqual([sourceId]);
  expect(sourceRows.every((c) => c.attributes.connector_type === "source")).toBe(true);

  const destinations = (await (await ws.viewer.get("/api/v1/connectors?type=DESTINATION&category=Data")).json()).data as Named[];
  expect(destinations.map((c) => c.id)).toEqual([destinationId]);
  // The links keep the filter as sent.
  expect((await (await ws.viewer.get("/api/v1/connectors?type=Source")).json()).links.self).toContain("type=Source");

  const bad = await expectError(await ws.viewer.get("/api/v1/connectors?type=Sink"), 400, "bad_request");
  expect(bad.message).toContain("source, destination");
  expect((await expectError(await ws.viewer.get("/api/v1/connectors?category=ML"), 400, "bad_request")).message).toContain("data, ai_ml");

  const defs = await ws.viewer.get("/api/v1/connector_definitions?type=Destination&category=DATA");
  expect(defs.status(), await defs.text()).toBe(200);
  const list = (await defs.json()) as { name: string; connector_type: string }[];
  expect(list.map((d) => d.name)).toEqual(expect.arrayContaining(["Http", "Slack", "Postgresql"]));
  expect(list.every((d) => d.connector_type === "destination")).toBe(true);
  const one = await ws.viewer.get("/api/v1/connector_definitions/POSTGRESQL?type=Destination");
  expect((await one.json()).connector_type).toBe("destination");
  expect((await expectError(await ws.viewer.get("/api/v1/connector_definitions?type=sink"), 400, "bad_request")).message).toContain(
    "source, destination",
  );
});

// ui/src/services/models.ts getAllModels sends query_type=raw_sql,dbt,soql,table_selector (qs
// encodes the commas); the reference's models_controller.rb splits it on commas.
test("13.3 GET /models?query_type=raw_sql,dbt,soql,table_selector takes a list", async () => {
  const created: Record<string, string> = {};
  for (const [type, query, configuration] of [
    ["raw_sql", `SELECT id, email FROM ${table}`, null],
    ["table_selector", `SELECT * FROM ${table}`, { table }],
  ] as const) {
    const res = await ws.admin.post("/api/v1/models", {
      model: { name: unique(type), query, query_type: type, primary_key: "id", connector_id: Number(sourceId), configuration },
    });
    expect(res.status(), await res.text()).toBe(201);
    created[type] = (await res.json()).data.id;
  }
  const ids = async (query: string) => {
    const res = await ws.viewer.get(`/api/v1/models?${query}`);
    expect(res.status(), `${query}: ${await res.text()}`).toBe(200);
    return ((await res.json()).data as { id: string }[]).map((m) => m.id).sort();
  };
  const both = [created.raw_sql, created.table_selector].sort();
  expect(await ids("query_type=raw_sql%2Cdbt%2Csoql%2Ctable_selector")).toEqual(both);
  expect(await ids("query_type=raw_sql,dbt,soql,table_selector")).toEqual(both);
  expect(await ids("query_type=raw_sql")).toEqual([created.raw_sql]);
  expect(await ids("query_type=dbt&query_type=table_selector")).toEqual([created.table_selector]);
  expect(await ids("query_type[]=raw_sql")).toEqual([created.raw_sql]);
  // Query types of the reference we do not run match no model.
  expect(await ids("query_type=dbt,soql")).toEqual([]);
  expect(await ids("")).toEqual(both);

  const bad = await expectError(await ws.viewer.get("/api/v1/models?query_type=raw_sql,bogus"), 400, "bad_request");
  expect(bad.message).toContain("bogus");
  expect(bad.message).toContain("raw_sql");
  await expectError(await ws.viewer.get("/api/v1/models?query_type=RAW_SQL"), 400, "bad_request");
});

// connector_definitions_controller.rb renders the definitions bare (`render json: @connectors`);
// ui/src/services/connectors.ts reads the list as the body and getConnectorDefinition reads
// data.connector_spec through apiRequest's {data: body}. ui/src/components/JSONSchemaForm renders
// connection_specification with @rjsf/validator-ajv8 (ajv's default draft-07 class, strict off),
// and ui/src/utils/generateUiSchema.ts makes a password input of each multiwoven_secret field.
test("13.4 connector definitions are bare, draft-07, marked multiwoven_secret, and validate like rjsf", async () => {
  const res = await ws.viewer.get("/api/v1/connector_definitions?type=source");
  expect(res.status()).toBe(200);
  const list = await res.json();
  expect(Array.isArray(list)).toBe(true);
  const one = await (await ws.viewer.get("/api/v1/connector_definitions/postgresql?type=source")).json();
  expect(one.data).toBeUndefined();
  expect(one).toMatchObject({ name: "Postgresql", connector_type: "source", connector_spec: { stream_type: "dynamic" } });
  expect(one).toEqual(list.find((d: { name: string }) => d.name === "Postgresql"));

  // What @rjsf/validator-ajv8's createAjvInstance builds.
  const rjsf = new Ajv({ allErrors: true, multipleOfPrecision: 8, strict: false, verbose: true, discriminator: false });
  addFormats(rjsf);
  const all = [...list, ...(await (await ws.viewer.get("/api/v1/connector_definitions?type=destination")).json())];
  expect(all.length).toBeGreaterThanOrEqual(7);
  for (const d of all) {
    const spec = d.connector_spec.connection_specification;
    expect(spec.$schema, d.name).toBe("http://json-schema.org/draft-07/schema#");
    expect(rjsf.validateSchema(spec), `${d.name}: ${JSON.stringify(rjsf.errors)}`).toBe(true);
    expect(() => rjsf.compile(spec), d.name).not.toThrow();
  }
  // The form's data validates in the browser as it does on our server.
  const pgSpec = one.connector_spec.connection_specification;
  const validate = rjsf.compile(pgSpec);
  expect(validate(pgConfiguration()), JSON.stringify(validate.errors)).toBe(true);
  expect(validate({ port: 5432 })).toBe(false);
  const rejected = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("bad"), connector_type: "source", connector_name: "Postgresql", configuration: { port: 5432 } },
  });
  expect(rejected.status()).toBe(422);

  // Secrets: ours (secret) and the reference's marker side by side.
  expect(pgSpec.properties.credentials.properties.password).toMatchObject({ secret: true, multiwoven_secret: true });
  expect(pgSpec.properties.host.multiwoven_secret).toBeUndefined();
  const http = await (await ws.viewer.get("/api/v1/connector_definitions/Http?type=destination")).json();
  const httpSpec = http.connector_spec.connection_specification;
  expect(httpSpec.properties.hmac_secret).toMatchObject({ secret: true, multiwoven_secret: true });
  // A secret object of strings: each header value is the password input (rjsf reads uiSchema.additionalProperties).
  expect(httpSpec.properties.headers).toMatchObject({ secret: true, additionalProperties: { type: "string", multiwoven_secret: true } });
});

type Stream = Record<string, unknown> & { name: string };

// ui/src/views/Activate/Syncs/SyncForm/ConfigureSyncs/ConfigureSyncs.tsx shows a loader until
// data.attributes.catalog.schema_mode is set; SelectStreams.tsx offers each stream's
// supported_sync_modes and reads catalog.source_defined_cursor. Members and defaults from the
// reference's integrations/lib/multiwoven/integrations/protocol/protocol.rb (Stream, Catalog);
// envelope from catalog_serializer.rb (id, connector_id, workspace_id, catalog, catalog_hash).
test("13.6 discover carries schema_mode, source_defined_cursor and supported_sync_modes", async () => {
  const res = await ws.viewer.get(`/api/v1/connectors/${sourceId}/discover`);
  expect(res.status(), await res.text()).toBe(200);
  const { data } = await res.json();
  expect(data).toMatchObject({ id: expect.any(String), type: "catalogs" });
  expect(Object.keys(data.attributes).sort()).toEqual(["catalog", "catalog_hash", "connector_id", "workspace_id"]);
  expect(data.attributes).toMatchObject({ connector_id: Number(sourceId), workspace_id: ws.workspaceId });
  const catalog = data.attributes.catalog;
  expect(catalog).toMatchObject({ schema_mode: "schema", source_defined_cursor: false });
  const people = (catalog.streams as Stream[]).find((s) => s.name === table);
  expect(people).toMatchObject({
    supported_sync_modes: ["full_refresh", "incremental"],
    source_defined_cursor: false,
    source_defined_primary_key: [["id"]],
    json_schema: { type: "object", properties: { id: expect.any(Object), email: expect.any(Object) } },
  });
  // Every stream has them, and a refresh keeps them.
  const refreshed = (await (await ws.viewer.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`)).json()).data.attributes.catalog;
  for (const s of refreshed.streams as Stream[]) {
    expect(s, s.name).toMatchObject({ supported_sync_modes: ["full_refresh", "incremental"], source_defined_cursor: false });
  }

  // HTTP takes any fields: the reference's own HTTP catalog is schemaless too.
  const hook = (await (await ws.viewer.get(`/api/v1/connectors/${destinationId}/discover`)).json()).data.attributes.catalog;
  expect(hook).toMatchObject({ schema_mode: "schemaless", source_defined_cursor: false });
  expect(hook.streams[0]).toMatchObject({ supported_sync_modes: ["full_refresh", "incremental"], source_defined_cursor: false });

  // A catalog written through the catalog endpoints carries them too (the schema mode it had stays).
  const put = await ws.admin.post("/api/v1/catalogs", {
    connector_id: Number(destinationId),
    catalog: { json_schema: { type: "object", properties: { email: { type: "string" } } } },
  });
  expect(put.status(), await put.text()).toBe(200);
  const written = (await put.json()).catalog;
  expect(written).toMatchObject({ schema_mode: "schemaless", source_defined_cursor: false });
  expect(written.streams[0]).toMatchObject({ supported_sync_modes: ["full_refresh", "incremental"], source_defined_cursor: false });
  const bad = await expectError(
    await ws.admin.post("/api/v1/catalogs", { connector_id: Number(destinationId), catalog: { json_schema: {}, schema_mode: "loose" } }),
    422,
    "validation_failed",
  );
  expect(bad.message).toContain("schema, schemaless");
});

// ui/src/views/Connectors/types.ts TestConnectionResponse; ConnectorConnectionTest.tsx and
// EditSource.tsx read connection_status.status === 'succeeded' and show connection_status.message.
// The reference's check_connection renders protocol.rb's ConnectionStatus message.
test("13.8 check_connection and connectors/{id}/check add the reference's connection_status", async () => {
  const expectStatus = async (res: Awaited<ReturnType<typeof ws.admin.post>>, ok: boolean) => {
    expect(res.status(), await res.text()).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      result: ok ? "success" : "failure",
      details: expect.any(String),
      type: "connection_status",
      connection_status: { status: ok ? "succeeded" : "failed", message: body.details },
    });
    expect(body.details.length).toBeGreaterThan(5);
    return body;
  };
  // The body the reference console sends (processConnectorConfigData in views/Connectors/helpers.ts).
  await expectStatus(
    await ws.admin.post("/api/v1/connector_definitions/check_connection", { type: "source", name: "postgresql", connection_spec: pgConfiguration() }),
    true,
  );
  const failed = await expectStatus(
    await ws.admin.post("/api/v1/connector_definitions/check_connection", {
      type: "Source",
      name: "Postgresql",
      connection_spec: pgConfiguration({ port: 1, connect_timeout: 2 }),
    }),
    false,
  );
  expect(failed.connection_status.message).toMatch(/127\.0\.0\.1|connect/i);

  await expectStatus(await ws.viewer.post(`/api/v1/connectors/${sourceId}/check`), true);
  await expectStatus(await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, { configuration: pgConfiguration({ port: 1, connect_timeout: 2 }) }), false);
});

// ui/src renders connector icons with <img src={icon}> from its own origin (e.g. the connectors
// and models lists read attributes.icon / connector.icon), so a relative /icons/x.svg would load
// from the console's origin instead of ours.
test("13.13 icons are absolute URLs on the Host the client used, and load across origins", async () => {
  const iconOf = async (path: string, headers: Record<string, string>) => {
    const res = await playwrightRequest.newContext({ baseURL: BASE_URL });
    try {
      const answer = await res.get(path, { headers: { Authorization: `Bearer ${ws.admin.session.token}`, "Workspace-Id": String(ws.workspaceId), ...headers } });
      expect(answer.status(), await answer.text()).toBe(200);
      return answer.json();
    } finally {
      await res.dispose();
    }
  };
  const viaHost = await iconOf("/api/v1/connectors?type=source", { Host: "sync.example.test:8443" });
  expect(viaHost.data[0].attributes.icon).toBe("http://sync.example.test:8443/icons/postgresql.svg");
  // Behind a trusted proxy (the test server runs with TRUST_PROXY=1), its forwarded host and protocol.
  const viaProxy = await iconOf(`/api/v1/connectors/${destinationId}`, { "X-Forwarded-Host": "etl.example.org", "X-Forwarded-Proto": "https" });
  expect(viaProxy.data.attributes.icon).toBe("https://etl.example.org/icons/http.svg");
  // A Host that is not a host name is ignored, never echoed into URLs.
  const odd = await iconOf("/api/v1/connectors?type=source", { Host: "evil.example/<x>" });
  expect(odd.data[0].attributes.icon).toMatch(/^http:\/\/[\w.-]+:\d+\/icons\/postgresql\.svg$/);
  expect(odd.data[0].attributes.icon).not.toContain("evil");

  const definitions = await (await ws.viewer.get("/api/v1/connector_definitions")).json();
  for (const d of definitions) expect(d.icon, d.name).toMatch(new RegExp(`^${BASE_URL.replace(/[.]/g, "\\.")}/icons/[\\w-]+\\.svg$`));
  const models = await (await ws.viewer.get("/api/v1/models")).json();
  for (const m of models.data) expect(m.attributes.connector.icon).toBe(`${BASE_URL}/icons/postgresql.svg`);

  // The icon itself: an image, allowed for other origins (no token needed).
  const context = await playwrightRequest.newContext();
  try {
    const icon = await context.get(definitions[0].icon, { headers: { Origin: "http://console.example.com" } });
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(icon.headers()["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(icon.headers()["access-control-allow-origin"]).toBe("*");
    expect(await icon.text()).toContain("<svg");
  } finally {
    await context.dispose();
  }
});

test("13.13 unknown /api paths answer a JSON 404, never an HTML page", async ({ request }) => {
  for (const [method, path] of [
    ["GET", "/api/v1/no_such_thing"],
    ["POST", "/api/v1/connectors/1/no_such_action"],
    ["DELETE", "/api/v2/connectors"],
    ["PUT", "/enterprise/api/v1/no_such_thing"],
    ["PATCH", "/api/v1/syncs/1/sync_runs/2/sync_records/3/x"],
  ] as const) {
    const res = await request.fetch(path, { method, headers: { Authorization: `Bearer ${ws.admin.session.token}` } });
    expect(res.headers()["content-type"], `${method} ${path}`).toMatch(/application\/json/);
    const body = await expectError(res, 404, "not_found");
    expect(body.message).toContain(path);
    expect(res.headers()["x-request-id"]).toBeTruthy();
  }
  // No token needed to learn that nothing is there.
  await expectError(await request.get("/api/v1/nothing/here"), 404, "not_found");
  // Existing routes are unaffected.
  expect((await request.get("/api/health")).status()).toBe(200);
  await expectError(await request.get("/api/v1/connectors"), 401, "unauthorized");
});
