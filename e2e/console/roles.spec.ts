// Role-based views: a Viewer sees the workspace but no create, edit or delete controls, and the
// API refuses its writes; an Admin sees them.
import { randomBytes } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { ADMIN, Api } from "../support/api";
import { acceptInvitation } from "../support/mailbox";
import { expect, shot, signIn, test, url } from "./fixtures";

/** Signs in over the API of the server under test (CONSOLE_BASE_URL when set). */
async function apiAs(request: APIRequestContext, email: string, password: string): Promise<Api> {
  const res = await request.post(url("/api/v1/login"), { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  return new Api({ token: (await res.json()).data.attributes.token });
}

const viewer = { email: `viewer-${randomBytes(4).toString("hex")}@example.com`, password: "viewer-password-1" };

test.beforeAll(async ({ request }) => {
  const admin = await apiAs(request, ADMIN.email, ADMIN.password);
  const me = (await (await admin.get(url("/api/v1/users/me"))).json()).data;
  const roles = (await (await admin.get(url("/enterprise/api/v1/roles"))).json()).data as { id: string; attributes: { role_name: string } }[];
  const viewerRole = roles.find((r) => r.attributes.role_name === "Viewer")!;
  const res = await admin.post(url(`/api/v1/workspaces/${me.attributes.workspace_id}/members`), {
    member: { email: viewer.email, name: "Vera Viewer", role_id: Number(viewerRole.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  await acceptInvitation(request, viewer.email, viewer.password, { url });
});

test("a Viewer sees no create buttons and cannot write", async ({ page, consoleErrors, request }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  await signIn(page, viewer.email, viewer.password);
  await expect(page.getByText("Your role: Viewer")).toBeVisible();

  for (const [path, heading, button] of [
    ["/sources", "Sources", "New source"],
    ["/destinations", "Destinations", "New destination"],
    ["/models", "Models", "New model"],
    ["/syncs", "Syncs", "New sync"],
    ["/settings/webhooks", "Webhooks", "New webhook"],
  ] as const) {
    await page.goto(url(path));
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible({ timeout: 60_000 });
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("link", { name: button })).toHaveCount(0);
    await expect(page.getByRole("button", { name: button })).toHaveCount(0);
  }
  await shot(page, "viewer-syncs");
  await page.goto(url("/settings/roles"));
  await expect(page.getByRole("heading", { level: 1, name: "Roles" })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("button", { name: "New role" })).toHaveCount(0);

  // What the buttons would do, the API refuses for this role.
  const api = await apiAs(request, viewer.email, viewer.password);
  const res = await api.post(url("/api/v1/connectors"), {
    connector: { name: "nope", connector_type: "source", connector_name: "Postgresql", configuration: {} },
  });
  expect(res.status()).toBe(403);
});

test("an Admin sees the create buttons", async ({ page, consoleErrors }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url("/sources"));
  await expect(page.getByRole("link", { name: "New source" }).first()).toBeVisible({ timeout: 60_000 });
  await page.goto(url("/settings/roles"));
  await expect(page.getByRole("button", { name: "New role" })).toBeVisible({ timeout: 60_000 });
});
