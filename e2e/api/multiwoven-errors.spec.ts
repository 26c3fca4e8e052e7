// Issue 13, points 5 and 10: ids in bodies as strings of digits (the reference console sends
// `"connector_id": "3"`), messages that tell a missing field from one of the wrong type, and the one
// error body {message, status, errors: [{status, title, detail, source?}]} of docs/architecture.md ("Errors"),
// whose items are what the reference console reads: ui/src/services/common.ts types them
// ErrorResponse {status, title, detail}; ui/src/hooks/useAPIMutation.tsx toasts them when
// `errors.length > 0`; ui/src/hooks/useErrorToast.tsx and SignIn.tsx show `titleCase(error.detail)`.
import http from "node:http";
import { expect, test } from "@playwright/test";
import { BASE_URL, expectError, fieldErrors, uniqueSuffix, type ErrorItem } from "../support/api";
import { dataWorkspace, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;
let modelId: number;

async function ok(res: Awaited<ReturnType<DataWorkspace["admin"]["post"]>>, status: number) {
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

const connectorBody = (type: string, name = unique(type)) => ({
  connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
});

test.beforeAll(async () => {
  ws = await dataWorkspace("mw-errors");
  sourceId = Number((await ok(await ws.admin.post("/api/v1/connectors", connectorBody("source")), 201)).data.id);
  destinationId = Number((await ok(await ws.admin.post("/api/v1/connectors", connectorBody("destination")), 201)).data.id);
  await ok(await ws.admin.post("/api/v1/catalogs", { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }] } }), 200);
  const model = await ok(
    await ws.admin.post("/api/v1/models", {
      model: { name: unique("m"), query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
    }),
    201,
  );
  modelId = Number(model.data.id);
});

test.afterAll(async () => {
  await ws?.dispose();
});

/** The sync body the reference console builds: every id a string (ui/src/views/Activate/Syncs). */
const stringIdSync = (overrides: Record<string, unknown> = {}) => ({
  sync: {
    source_id: String(sourceId),
    destination_id: String(destinationId),
    model_id: String(modelId),
    schedule_type: "manual",
    sync_mode: "full_refresh",
    stream_name: "contacts",
    configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    ...overrides,
  },
});

/** What the reference console does with an error body: ui/src/utils/TitleCase.ts on each detail. */
function consoleToasts(body: { errors?: ErrorItem[] }): string[] {
  // ui/src/hooks/useAPIMutation.tsx: `if (result?.errors && result?.errors.length > 0)`.
  expect(body.errors && body.errors.length > 0).toBe(true);
  return body.errors!.map((error) =>
    error.detail
      .toLowerCase()
      .split(" ")
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(" "),
  );
}

test("13.5 POST and PUT /syncs take ids as strings of digits and store integers", async () => {
  const created = await ok(await ws.admin.post("/api/v1/syncs", stringIdSync()), 200);
  expect(created.attributes).toMatchObject({ source_id: sourceId, destination_id: destinationId, model_id: modelId });
  const shown = await ok(await ws.admin.get(`/api/v1/syncs/${created.id}`), 200);
  expect(shown.attributes.source_id).toBe(sourceId);
  expect(typeof shown.attributes.model_id).toBe("number");

  const otherModel = await ok(
    await ws.admin.post("/api/v1/models", {
      model: { name: unique("m2"), query: "SELECT 1 AS id", query_type: "raw_sql", primary_key: "id", connector_id: String(sourceId) },
    }),
    201,
  );
  const updated = await ok(
    await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { model_id: otherModel.data.id, source_id: `${sourceId}` } }),
    200,
  );
  expect(updated.data.attributes.model_id).toBe(Number(otherModel.data.id));
  expect(typeof updated.data.attributes.model_id).toBe("number");
});

test("13.5 POST and PUT /models take connector_id as a string of digits", async () => {
  const created = await ok(
    await ws.admin.post("/api/v1/models", {
      model: { name: unique("m"), query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: String(sourceId) },
    }),
    201,
  );
  expect(created.data.attributes.connector_id).toBe(sourceId);
  const updated = await ok(await ws.admin.put(`/api/v1/models/${created.data.id}`, { model: { connector_id: `${sourceId}` } }), 200);
  expect(updated.data.attributes.connector_id).toBe(sourceId);
});

test("13.5 POST and PUT /catalogs take connector_id as a string of digits", async () => {
  const destination = Number((await ok(await ws.admin.post("/api/v1/connectors", connectorBody("destination")), 201)).data.id);
  const created = await ok(
    await ws.admin.post("/api/v1/catalogs", { connector_id: String(destination), catalog: { json_schema: { type: "object" } } }),
    200,
  );
  expect(created.connector_id).toBe(destination);
  const updated = await ok(
    await ws.admin.put(`/api/v1/catalogs/${created.id}`, { connector_id: String(destination), catalog: { streams: [{ name: "s" }] } }),
    200,
  );
  expect(updated.data.attributes.connector_id).toBe(destination);
});

test("13.5 POST /schedule_syncs takes sync_id as a string of digits", async () => {
  const sync = await ok(await ws.admin.post("/api/v1/syncs", stringIdSync()), 200);
  const run = await ok(await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: String(sync.id) } }), 200);
  expect(run.data.attributes.sync_id).toBe(Number(sync.id));
  await ws.admin.delete(`/api/v1/schedule_syncs/${sync.id}`);
  // An unknown id as a string is looked up (404), not refused as a type (422).
  await expectError(await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: "99999999" } }), 404, "not_found");
});

test("13.5 role_id of a new member and of an API token as a string of digits", async () => {
  const roles = (await ok(await ws.admin.get("/enterprise/api/v1/roles"), 200)).data as { id: string; attributes: { role_name: string } }[];
  const viewer = roles.find((r) => r.attributes.role_name === "Viewer")!.id;
  const member = await ok(
    await ws.admin.post(`/api/v1/workspaces/${ws.workspaceId}/members`, {
      member: { email: `mw-${uniqueSuffix()}@example.com`, name: "String Role", role_id: viewer },
    }),
    201,
  );
  expect(member.data.attributes.role_id).toBe(Number(viewer));
  const token = await ok(await ws.admin.post("/api/v1/api_tokens", { api_token: { name: "string role", role_id: viewer } }), 201);
  expect(token.data.attributes).toMatchObject({ role_id: Number(viewer), role_name: "Viewer" });
});

test("13.5 ids that are not positive integers stay a 422 that says what came", async () => {
  const cases: [unknown, string][] = [
    ["abc", 'must be an integer id (got a string "abc")'],
    ["-1", 'must be an integer id (got a string "-1")'],
    [-1, "must be an integer id of 1 or more (got -1)"],
    [0, "must be an integer id of 1 or more (got 0)"],
    ["0", "must be an integer id of 1 or more (got 0)"],
    [1.5, "must be an integer id (got 1.5)"],
    ["1.5", 'must be an integer id (got a string "1.5")'],
    [" 3", 'must be an integer id (got a string " 3")'],
    [2147483648, "must be an integer id of at most 2147483647 (got 2147483648)"],
    ["99999999999999999999", 'must be an integer id of at most 2147483647 (got a string "99999999999999999999")'],
    [true, "must be an integer id (got true)"],
    [null, "must be an integer id (got null)"],
  ];
  for (const [id, said] of cases) {
    const body = await expectError(await ws.admin.post("/api/v1/syncs", stringIdSync({ model_id: id })), 422, "validation_failed");
    expect(fieldErrors(body), JSON.stringify(id)).toEqual([{ path: "sync.model_id", message: said }]);
    expect(body.message).toContain(`sync.model_id: ${said}`);
  }
  const catalog = await expectError(
    await ws.admin.post("/api/v1/catalogs", { connector_id: "3x", catalog: { json_schema: {} } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(catalog)).toEqual([{ path: "connector_id", message: 'must be an integer id (got a string "3x")' }]);
  const role = await expectError(
    await ws.admin.post("/api/v1/api_tokens", { api_token: { name: "x", role_id: "admin" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(role)).toEqual([{ path: "api_token.role_id", message: 'must be a role id (got a string "admin")' }]);
  // A path id is a parameter: 400, and the item names the parameter.
  const path = await expectError(await ws.admin.get("/api/v1/syncs/abc"), 400, "bad_request");
  expect(path.errors).toEqual([
    { status: "400", title: "bad_request", detail: 'id: must be an integer id (got a string "abc")', source: { parameter: "id" } },
  ]);
});

test("13.5 a field of the wrong type says what was expected and what came; only a missing one is required", async () => {
  const wrong = await expectError(
    await ws.admin.post("/api/v1/models", {
      model: { name: 42, query: ["SELECT 1"], query_type: "raw_sql", primary_key: 7, connector_id: sourceId },
    }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(wrong)).toEqual([
    { path: "model.name", message: "must be a string (got 42)" },
    { path: "model.query", message: "must be a string (got an array)" },
    { path: "model.primary_key", message: "must be a string (got 7)" },
  ]);
  expect(wrong.message).not.toMatch(/required/);

  const missing = await expectError(await ws.admin.post("/api/v1/models", { model: { query_type: "raw_sql" } }), 422, "validation_failed");
  const said = Object.fromEntries(fieldErrors(missing).map((e) => [e.path, e.message]));
  expect(said["model.name"]).toBe("is required");
  expect(said["model.connector_id"]).toBe("is required (an integer id)");
  // primary_key is optional, as in the reference (a sync needs it: reference-gaps.spec.ts).
  expect(said["model.primary_key"]).toBeUndefined();

  const noModel = await expectError(await ws.admin.post("/api/v1/models", { model: "users" }), 422, "validation_failed");
  expect(fieldErrors(noModel)).toEqual([{ path: "model", message: 'must be an object (got a string "users")' }]);
  const absent = await expectError(await ws.admin.post("/api/v1/models", {}), 422, "validation_failed");
  expect(fieldErrors(absent)[0]).toEqual({ path: "model", message: expect.stringMatching(/^is required: send \{model:/) });

  const enable = await expectError(
    await ws.admin.patch(`/api/v1/syncs/${(await ok(await ws.admin.post("/api/v1/syncs", stringIdSync()), 200)).id}/enable`, { enable: "yes" }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(enable)).toEqual([{ path: "enable", message: 'must be true or false (got a string "yes")' }]);
  const mode = await expectError(await ws.admin.post("/api/v1/syncs", stringIdSync({ sync_mode: "sometimes" })), 422, "validation_failed");
  expect(fieldErrors(mode)).toEqual([{ path: "sync.sync_mode", message: 'must be one of: full_refresh, incremental (got a string "sometimes")' }]);
});

test("13.10 400: malformed JSON gets one item without a source", async () => {
  const res = await fetch(`${BASE_URL}/api/v1/syncs`, {
    method: "POST",
    headers: { authorization: `Bearer ${ws.admin.session.token}`, "workspace-id": String(ws.workspaceId), "content-type": "application/json" },
    body: '{"sync": ',
  });
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body).toEqual({
    message: "The request body is not valid JSON.",
    status: "bad_request",
    errors: [{ status: "400", title: "bad_request", detail: "The request body is not valid JSON." }],
  });
});

test("13.10 400: a bad query parameter is named in source.parameter", async () => {
  const page = await expectError(await ws.admin.get("/api/v1/syncs?page=0"), 400, "bad_request");
  expect(page.errors).toEqual([
    { status: "400", title: "bad_request", detail: expect.stringContaining("page: must be a whole number"), source: { parameter: "page" } },
  ]);
  const size = await expectError(await ws.admin.get("/api/v1/models?page[size]=x"), 400, "bad_request");
  expect(size.errors[0].source).toEqual({ parameter: "page[size]" });
  const filter = await expectError(await ws.admin.get("/api/v1/syncs?status=sleeping"), 400, "bad_request");
  expect(filter.errors[0]).toMatchObject({ source: { parameter: "status" }, detail: expect.stringContaining("must be one of:") });
  const id = await expectError(await ws.admin.get("/api/v1/models?connector_id=abc"), 400, "bad_request");
  expect(id.errors[0]).toMatchObject({ source: { parameter: "connector_id" }, detail: 'connector_id: must be an integer id (got a string "abc")' });
  const header = await expectError(
    await fetch(`${BASE_URL}/api/v1/syncs`, { headers: { authorization: `Bearer ${ws.admin.session.token}`, "workspace-id": "x" } }).then(asApi),
    400,
    "bad_request",
  );
  expect(header.errors[0].source).toEqual({ header: "Workspace-Id" });
});

test("13.10 401 and 403 carry one item; the reference console's sign-in reads errors[].detail", async ({ request }) => {
  const anonymous = await expectError(await request.get("/api/v1/syncs"), 401, "unauthorized");
  expect(anonymous.errors).toEqual([{ status: "401", title: "unauthorized", detail: anonymous.message }]);
  // ui/src/views/Authentication/SignIn/SignIn.tsx: result.errors.forEach(e => toast(titleCase(e.detail))).
  const login = await expectError(await request.post("/api/v1/login", { data: { email: "nobody@example.com", password: "wrong-password" } }), 401, "unauthorized");
  expect(consoleToasts(login)).toHaveLength(1);
  const viewer = await expectError(await ws.viewer.post("/api/v1/syncs", stringIdSync()), 403, "forbidden");
  expect(viewer.errors).toEqual([{ status: "403", title: "forbidden", detail: viewer.message }]);
});

test("13.10 404 keeps the interface's {message, status} and adds one item", async () => {
  const missing = await expectError(await ws.admin.get("/api/v1/syncs/99999999"), 404, "not_found");
  expect(missing.errors).toEqual([{ status: "404", title: "not_found", detail: missing.message }]);
  const records = await expectError(await ws.admin.get("/api/v1/syncs/99999999/sync_runs/99999999/sync_records"), 404, "not_found");
  expect(Object.keys(records).sort()).toEqual(["errors", "message", "status"]);
});

test("13.10 409 conflict", async () => {
  const name = unique("dup");
  await ok(await ws.admin.post("/api/v1/connectors", connectorBody("source", name)), 201);
  const dup = await expectError(await ws.admin.post("/api/v1/connectors", connectorBody("source", name)), 409, "conflict");
  // One item the console can toast, pointing at the name it is about (the naming rule, README "Names").
  expect(dup.errors).toEqual([{ status: "409", title: "conflict", detail: `connector.name: is taken: ${dup.message}`, source: { pointer: "/connector/name" } }]);
});

test("13.10 413 from the HTTP server and from the route wrapper have the same body", async () => {
  const big = await expectError(
    await ws.admin.post("/api/v1/connectors", { connector: { name: "x".repeat(1_100_000) } }),
    413,
    "payload_too_large",
  );
  expect(big.errors).toEqual([{ status: "413", title: "payload_too_large", detail: big.message }]);
  // A declared length over the limit is answered by scripts/start.ts before Next reads the body.
  const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${BASE_URL}/api/v1/models`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(5 * 1024 * 1024) },
    }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.write(Buffer.alloc(16 * 1024, "a"));
  });
  expect(raw.status).toBe(413);
  expect(JSON.parse(raw.body)).toEqual({ message: big.message, status: "payload_too_large", errors: big.errors });
});

test("13.10 415 unsupported media type", async () => {
  const res = await fetch(`${BASE_URL}/api/v1/syncs`, {
    method: "POST",
    headers: { authorization: `Bearer ${ws.admin.session.token}`, "workspace-id": String(ws.workspaceId), "content-type": "application/xml" },
    body: "<sync/>",
  });
  const body = await expectError(await asApi(res), 415, "unsupported_media_type");
  expect(body.errors).toEqual([{ status: "415", title: "unsupported_media_type", detail: body.message }]);
});

test("13.10 422: each field problem is an item pointing into the body", async () => {
  const body = await expectError(
    await ws.admin.post("/api/v1/syncs", stringIdSync({ schedule_type: "hourly", configuration: [{ from: "a", to: "" }] })),
    422,
    "validation_failed",
  );
  expect(body.errors).toEqual(
    expect.arrayContaining([
      {
        status: "422",
        title: "validation_failed",
        detail: expect.stringMatching(/^sync\.schedule_type: must be one of: manual, interval, cron_expression, automated/),
        source: { pointer: "/sync/schedule_type" },
      },
      { status: "422", title: "validation_failed", detail: "sync.configuration.0.to: must not be empty", source: { pointer: "/sync/configuration/0/to" } },
    ]),
  );
  // A rule checked by a service (not the schema) points at its field the same way.
  const model = await expectError(
    await ws.admin.post("/api/v1/syncs", stringIdSync({ model_id: "99999999" })),
    422,
    "validation_failed",
  );
  expect(model.errors).toEqual([
    expect.objectContaining({ source: { pointer: "/sync/model_id" }, detail: expect.stringContaining("model 99999999 was not found") }),
  ]);
  for (const toast of consoleToasts(body)) expect(toast.length).toBeGreaterThan(5);
});

test("13.10 424 failed dependency, as the reference console's sync view shows it", async () => {
  const sync = await ok(await ws.admin.post("/api/v1/syncs", stringIdSync()), 200);
  await ok(await ws.admin.patch(`/api/v1/syncs/${sync.id}/enable`, { enable: false }), 200);
  const disabled = await expectError(
    await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: String(sync.id) } }),
    424,
    "failed_dependency",
  );
  expect(disabled.errors).toEqual([{ status: "424", title: "failed_dependency", detail: disabled.message }]);
  expect(disabled.message).toContain(`Sync ${sync.id} is disabled`);
  // ui/src/views/Activate/Syncs/ViewSync/ViewSync.tsx passes syncChangeResponse.errors to the toast.
  expect(consoleToasts(disabled)[0]).toMatch(/^Sync \d+ Is Disabled/);
});

/** fetch's Response as the subset of Playwright's APIResponse that expectError reads. */
async function asApi(res: Response) {
  const text = await res.text();
  return { status: () => res.status, text: async () => text, json: async () => JSON.parse(text) } as never;
}
