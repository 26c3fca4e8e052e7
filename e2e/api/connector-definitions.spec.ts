import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, pgConfiguration, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
test.beforeAll(async () => {
  ws = await dataWorkspace("defs");
});

test.afterAll(async () => {
  await ws?.dispose();
});

// A bare array and a bare object, as the reference's connector_definitions_controller.rb renders them.
test("GET /connector_definitions lists definitions, filtered by type and category", async () => {
  const res = await ws.viewer.get("/api/v1/connector_definitions?type=source&category=data");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(Array.isArray(body)).toBe(true);
  const pg = body.find((d: { name: string }) => d.name === "Postgresql");
  expect(pg).toMatchObject({ connector_type: "source", category: "Data Warehouse", title: expect.any(String), icon: expect.any(String) });
  expect(pg.connector_spec.connection_specification.type).toBe("object");
  expect(body.every((d: { connector_type: string }) => d.connector_type === "source")).toBe(true);

  const destinations = await (await ws.viewer.get("/api/v1/connector_definitions?type=destination")).json();
  expect(destinations.length).toBeGreaterThan(0);
  expect(destinations.every((d: { connector_type: string }) => d.connector_type === "destination")).toBe(true);
  expect(await (await ws.viewer.get("/api/v1/connector_definitions?category=ai_ml&type=destination")).json()).toEqual([]);
});

test("GET /connector_definitions rejects unknown filter values and needs a token", async ({ request }) => {
  const bad = await expectError(await ws.admin.get("/api/v1/connector_definitions?type=sink"), 400, "bad_request");
  expect(bad.message).toContain("source, destination");
  await expectError(await ws.admin.get("/api/v1/connector_definitions?category=other"), 400, "bad_request");
  await expectError(await request.get("/api/v1/connector_definitions"), 401, "unauthorized");
});

test("GET /connector_definitions/{name} is case-insensitive; unknown is 404", async () => {
  const res = await ws.viewer.get("/api/v1/connector_definitions/postgresql?type=destination");
  expect(res.status()).toBe(200);
  expect(await res.json()).toMatchObject({ name: "Postgresql", connector_type: "destination" });
  const missing = await expectError(await ws.viewer.get("/api/v1/connector_definitions/NoSuchThing"), 404, "not_found");
  expect(missing.message).toContain("NoSuchThing");
});

test("POST /connector_definitions/check_connection reports success and failure", async () => {
  const ok = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    name: "Postgresql",
    type: "source",
    connection_spec: pgConfiguration(),
  });
  expect(ok.status(), await ok.text()).toBe(200);
  const okBody = await ok.json();
  expect(okBody.result).toBe("success");
  expect(typeof okBody.details).toBe("string");

  const refused = await (
    await ws.admin.post("/api/v1/connector_definitions/check_connection", {
      name: "postgresql",
      connection_spec: pgConfiguration({ port: 1, connect_timeout: 2 }),
    })
  ).json();
  expect(refused.result).toBe("failure");
  expect(refused.details).toMatch(/127\.0\.0\.1|connect/i);

  // A configuration that breaks the schema is a failed check naming the fields (the console shows it by the form).
  const invalid = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    name: "Postgresql",
    connection_spec: { port: 5432 },
  });
  expect(invalid.status()).toBe(200);
  const invalidBody = await invalid.json();
  expect(invalidBody.result).toBe("failure");
  expect(invalidBody.details).toContain("host");
  expect(invalidBody.details).toContain("credentials");
});

test("check_connection: bad bodies are 422, unknown connectors 422, Viewers 403", async () => {
  const missing = await expectError(await ws.admin.post("/api/v1/connector_definitions/check_connection", { name: "Postgresql" }), 422, "validation_failed");
  expect(fieldErrors(missing)).toEqual(expect.arrayContaining([expect.objectContaining({ path: "connection_spec" })]));
  const unknown = await expectError(
    await ws.admin.post("/api/v1/connector_definitions/check_connection", { name: "Nope", connection_spec: {} }),
    422,
    "validation_failed",
  );
  expect(unknown.message).toContain("Postgresql");
  await expectError(
    await ws.viewer.post("/api/v1/connector_definitions/check_connection", { name: "Postgresql", connection_spec: pgConfiguration() }),
    403,
    "forbidden",
  );
});
