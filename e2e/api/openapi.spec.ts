// GET /api/v1/openapi.json over real HTTP, and the console's /docs/api page behind sign-in.
import { expect, test } from "@playwright/test";

test("GET /api/v1/openapi.json serves the OpenAPI 3.1 document without a token", async ({ request }) => {
  const res = await request.get("/api/v1/openapi.json");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/application\/json/);
  const doc = await res.json();
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.info.version).toBe("1.0.0");
  expect(Object.keys(doc.paths).length).toBeGreaterThan(35);
  expect(doc.paths["/api/v1/syncs"].post.operationId).toBe("createSync");
  expect(doc.paths["/api/v1/workspaces/{id}/members"].post["x-permission"]).toBe("user.create");
  expect(doc.components.schemas.Error.properties.message.type).toBe("string");
});

test("/docs/api asks for a console sign-in first", async ({ request }) => {
  const res = await request.get("/docs/api", { maxRedirects: 0 });
  expect([302, 303, 307, 308]).toContain(res.status());
  expect(res.headers().location).toMatch(/\/login\?callbackUrl=%2Fdocs%2Fapi/);
});
