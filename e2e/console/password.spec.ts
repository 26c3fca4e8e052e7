// Settings → Password: a signed-in person changes their password; the console signs them out, the
// new password signs in and the old one no longer does.
import { randomBytes } from "node:crypto";
import { ADMIN, Api } from "../support/api";
import { acceptInvitation } from "../support/mailbox";
import { expect, signIn, test, url } from "./fixtures";

const person = { email: `pw-${randomBytes(4).toString("hex")}@example.com`, password: "first-password-1" };
const next = "second-password-2";

test.beforeAll(async ({ request }) => {
  const login = await request.post(url("/api/v1/login"), { data: ADMIN });
  const admin = new Api({ token: (await login.json()).data.attributes.token });
  const me = (await (await admin.get(url("/api/v1/users/me"))).json()).data;
  const roles = (await (await admin.get(url("/enterprise/api/v1/roles"))).json()).data as {
    id: string;
    attributes: { role_name: string };
  }[];
  const res = await admin.post(url(`/api/v1/workspaces/${me.attributes.workspace_id}/members`), {
    member: {
      email: person.email,
      name: "Pat Password",
      role_id: Number(roles.find((r) => r.attributes.role_name === "Viewer")!.id),
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  await acceptInvitation(request, person.email, person.password, { url });
});

test("changing the password signs out; the new one signs in, the old one does not", async ({
  page,
  consoleErrors,
  request,
}) => {
  test.setTimeout(300_000);
  void consoleErrors;
  await signIn(page, person.email, person.password);
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Password", exact: true })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Password" })).toBeVisible({ timeout: 60_000 });
  await page.getByLabel("Current password").fill(person.password);
  await page.getByLabel("New password").fill(next);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible({ timeout: 60_000 });
  expect((await request.post(url("/api/v1/login"), { data: person })).status()).toBe(401);
  await signIn(page, person.email, next);
});
