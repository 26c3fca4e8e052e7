import { expect, test } from "@playwright/test";
import { ADMIN, Api, expectError, loginAs } from "../support/api";

test("GET /api/health reports the database", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ status: "ok", database: "up" });
});

test("login returns the token envelope and roles list works with it", async ({ request }) => {
  const token = await loginAs(request, ADMIN.email, ADMIN.password);
  expect(token.split(".")).toHaveLength(3);
  const api = new Api({ token });
  const roles = await (await api.get("/enterprise/api/v1/roles")).json();
  expect(roles.data.map((r: { attributes: { role_name: string } }) => r.attributes.role_name)).toEqual(
    expect.arrayContaining(["Admin", "Member", "Viewer"]),
  );
  expect(roles.links).toBeUndefined();
});

test("bad credentials and missing tokens are 401 with the error body", async ({ request }) => {
  await expectError(await request.post("/api/v1/login", { data: { email: ADMIN.email, password: "nope" } }), 401, "unauthorized");
  await expectError(await request.get("/enterprise/api/v1/roles"), 401, "unauthorized");
  await expectError(await request.post("/api/v1/login", { data: Buffer.from("{not json"), headers: { "content-type": "application/json" } }), 400, "bad_request");
  await expectError(await request.post("/api/v1/login", { data: { email: 3 } }), 422, "validation_failed");
});
