// POST /api/v1/connectors/{id}/check: re-test a saved connector without retyping its secrets, or
// unsaved settings whose masked secrets keep the stored ones. Real PostgreSQL servers: the
// TEST_DATABASE_URL one (it trusts local connections) and, for passwords, one that checks them.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, MASK, pgConfiguration, unique, type DataWorkspace } from "../support/data";
import { startPasswordPostgres, type PasswordPostgres } from "../support/password-pg";

test.describe.configure({ mode: "serial", timeout: 120_000 });

const PG_USER = "ds_check_user";
const RIGHT = "right-password-7f3a";
const CHANGED = "changed-password-91c2";
const WRONG = "wrong-password-d04e";

let ws: DataWorkspace;
let other: DataWorkspace;
let pw: PasswordPostgres | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  ws = await dataWorkspace("check");
  other = await dataWorkspace("check-other");
  pw = await startPasswordPostgres();
  await pw.asOwner(`CREATE ROLE ${PG_USER} LOGIN PASSWORD '${RIGHT}'`);
});

test.afterAll(async () => {
  await pw?.stop();
  await ws?.dispose();
  await other?.dispose();
});

async function createConnector(in_: DataWorkspace, configuration: Record<string, unknown>, type = "source"): Promise<string> {
  const connector_name = "destination_url" in configuration ? "Http" : "Postgresql";
  const res = await in_.admin.post("/api/v1/connectors", {
    connector: { name: unique("check"), connector_type: type, connector_name, configuration },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data.id as string;
}

async function auditTotal(): Promise<number> {
  return (await (await ws.admin.get("/api/v1/audit_logs?per_page=1")).json()).meta.total_count as number;
}

test("a saved PostgreSQL connector checks without its secrets being sent: 200 {result, details}", async () => {
  const id = await createConnector(ws, pgConfiguration());
  for (const body of [undefined, {}]) {
    const res = await ws.admin.post(`/api/v1/connectors/${id}/check`, body);
    expect(res.status(), await res.text()).toBe(200);
    const answer = await res.json();
    // the API contract's {result, details} plus the reference protocol's ConnectionStatus.
    expect(Object.keys(answer).sort()).toEqual(["connection_status", "details", "result", "type"]);
    expect(answer.result).toBe("success");
    expect(answer.connection_status).toEqual({ status: "succeeded", message: answer.details });
    expect(answer.details).toMatch(/PostgreSQL/);
  }
  // A destination checks the same way.
  const destination = await createConnector(ws, pgConfiguration(), "destination");
  expect((await (await ws.admin.post(`/api/v1/connectors/${destination}/check`)).json()).result).toBe("success");
});

test("wrong password: a clear failure that never echoes a password; masked secrets keep the stored one", async () => {
  const id = await createConnector(ws, pw!.configuration(PG_USER, RIGHT));
  const auditsBefore = await auditTotal();
  const check = async (body?: unknown) => {
    const res = await ws.admin.post(`/api/v1/connectors/${id}/check`, body);
    const text = await res.text();
    expect(res.status(), text).toBe(200);
    for (const secret of [RIGHT, CHANGED, WRONG]) expect(text).not.toContain(secret);
    return JSON.parse(text) as { result: string; details: string };
  };
  expect(await check()).toMatchObject({ result: "success" });

  // Unsaved settings with another password: tried, not stored.
  const shown = (await (await ws.admin.get(`/api/v1/connectors/${id}`)).json()).data.attributes.configuration;
  expect(shown.credentials.password).toBe(MASK);
  const wrong = await check({ configuration: { ...shown, credentials: { ...shown.credentials, password: WRONG } } });
  expect(wrong).toMatchObject({
    result: "failure",
    details: `Password authentication failed for user "${PG_USER}". Check the username and password.`,
  });
  expect(await check()).toMatchObject({ result: "success" });

  // The masked configuration as the API showed it: the mask means "the stored password".
  expect(await check({ configuration: shown })).toMatchObject({ result: "success" });
  // ... and unsaved non-secret changes are what gets tried; a new target needs the secret again.
  const retarget = await expectError(
    await ws.admin.post(`/api/v1/connectors/${id}/check`, { configuration: { ...shown, port: 1, connect_timeout: 2 } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(retarget)).toEqual([{ path: "configuration.credentials.password", message: expect.stringMatching(/enter it again: port changed/) }]);
  const refused = await check({ configuration: { ...shown, port: 1, connect_timeout: 2, credentials: { ...shown.credentials, password: RIGHT } } });
  expect(refused.result).toBe("failure");
  expect(refused.details).toMatch(/127\.0\.0\.1:1.*refused/);
  // Settings that break the connector's schema fail the check naming the fields, as check_connection does.
  const invalid = await check({ configuration: { ...shown, host: undefined } });
  expect(invalid.result).toBe("failure");
  expect(invalid.details).toMatch(/invalid: .*host/);

  // The password changes on the server: re-testing the saved connector says so.
  await pw!.asOwner(`ALTER ROLE ${PG_USER} PASSWORD '${CHANGED}'`);
  expect(await check()).toMatchObject({
    result: "failure",
    details: `Password authentication failed for user "${PG_USER}". Check the username and password.`,
  });
  // The new password, typed once, is tried without saving (the stored one is still the old).
  expect(await check({ configuration: { ...shown, credentials: { ...shown.credentials, password: CHANGED } } })).toMatchObject({ result: "success" });
  expect((await check()).result).toBe("failure");

  // Checks change nothing, so they leave no audit entry (check_connection writes none either).
  expect(await auditTotal()).toBe(auditsBefore);
});

test("an HTTP destination re-tests with its stored secret header, through the server's guarded fetch", async () => {
  const seen: { method?: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, headers: req.headers });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    // A host name (not an IP literal): the connection resolves it through the outbound guard.
    const id = await createConnector(ws, { destination_url: `http://localhost:${port}/hook`, headers: { Authorization: "Bearer stored-token-3e1" } }, "destination");
    const res = await ws.admin.post(`/api/v1/connectors/${id}/check`);
    expect(res.status(), await res.text()).toBe(200);
    expect(await res.json()).toMatchObject({ result: "success", details: `Reached localhost:${port} (HTTP 200 to OPTIONS).` });
    expect(seen).toEqual([{ method: "OPTIONS", headers: expect.objectContaining({ authorization: "Bearer stored-token-3e1" }) }]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test("unknown ids are 404, malformed ids 400, another workspace's connector 404", async () => {
  const missing = await expectError(await ws.admin.post("/api/v1/connectors/2000000000/check"), 404, "not_found");
  expect(missing.message).toContain("2000000000");
  await expectError(await ws.admin.post("/api/v1/connectors/abc/check"), 400, "bad_request");

  const theirs = await createConnector(other, pgConfiguration());
  expect((await (await other.admin.post(`/api/v1/connectors/${theirs}/check`)).json()).result).toBe("success");
  // The seeded admin belongs to both workspaces: from this one, the other's connector does not exist.
  const foreign = await expectError(await ws.admin.post(`/api/v1/connectors/${theirs}/check`), 404, "not_found");
  expect(foreign.message).toBe(`Connector ${theirs} was not found.`);
  await expectError(await ws.viewer.post(`/api/v1/connectors/${theirs}/check`, { configuration: pgConfiguration() }), 403, "forbidden");
  await expectError(await other.viewer.post(`/api/v1/connectors/${theirs}/check`, { configuration: pgConfiguration() }), 403, "forbidden");
});

test("a Viewer (connector.read) re-tests saved connectors, but trying other settings needs connector.update", async () => {
  const id = await createConnector(ws, pw!.configuration(PG_USER, CHANGED));
  const res = await ws.viewer.post(`/api/v1/connectors/${id}/check`);
  expect(res.status(), await res.text()).toBe(200);
  expect((await res.json()).result).toBe("success");
  // Other settings with the stored secret could send that secret to a host of the viewer's choosing.
  const shown = (await (await ws.viewer.get(`/api/v1/connectors/${id}`)).json()).data.attributes.configuration;
  const refused = await expectError(
    await ws.viewer.post(`/api/v1/connectors/${id}/check`, { configuration: { ...shown, host: "localhost" } }),
    403,
    "forbidden",
  );
  expect(refused.message).toMatch(/Viewer.*leave out "configuration"/);
});

test("bad bodies are 4xx with the error body", async ({ request }) => {
  const id = await createConnector(ws, pgConfiguration());
  const notObject = await expectError(await ws.admin.post(`/api/v1/connectors/${id}/check`, { configuration: "host=x" }), 422, "validation_failed");
  expect(fieldErrors(notObject)).toEqual([expect.objectContaining({ path: "configuration" })]);
  // The update's shape is not this endpoint's: refused rather than quietly trying the saved settings.
  const misspelt = await expectError(
    await ws.admin.post(`/api/v1/connectors/${id}/check`, { connector: { configuration: pgConfiguration() } }),
    422,
    "validation_failed",
  );
  expect(misspelt.message).toContain("connector");
  for (const data of ["{", "[1]", "null"]) {
    const res = await request.fetch(`/api/v1/connectors/${id}/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.admin.session.token}`, "workspace-id": String(ws.workspaceId), "content-type": "application/json" },
      data,
    });
    expect([400, 422], `${data}: ${await res.text()}`).toContain(res.status());
  }
});

test("the OpenAPI document describes the route", async ({ request }) => {
  const doc = await (await request.get("/api/v1/openapi.json")).json();
  const op = doc.paths["/api/v1/connectors/{id}/check"]?.post;
  expect(op).toMatchObject({ operationId: "checkConnector", "x-permission": "connector.read", requestBody: { required: false } });
  expect(op.requestBody.content["application/json"].schema.properties).toHaveProperty("configuration");
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "404", "422"]));
});
