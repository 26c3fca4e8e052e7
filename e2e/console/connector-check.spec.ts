// "Test connection" on a saved connector's page: the saved settings are tried without retyping the
// password, the outcome is shown with the server's sentence, and in the edit form unsaved settings
// are tried with the hidden password kept (a PostgreSQL that really checks passwords).
import type { APIRequestContext } from "@playwright/test";
import { ADMIN, Api } from "../support/api";
import { startPasswordPostgres, type PasswordPostgres } from "../support/password-pg";
import { expect, shot, signIn, test, url } from "./fixtures";

const USER = "ds_console_check";
const PASSWORD = "console-check-password-5b1";
let pw: PasswordPostgres | undefined;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  pw = await startPasswordPostgres();
  await pw.asOwner(`CREATE ROLE ${USER} LOGIN PASSWORD '${PASSWORD}'`);
});

test.afterAll(async () => {
  await pw?.stop();
});

async function adminApi(request: APIRequestContext): Promise<Api> {
  const res = await request.post(url("/api/v1/login"), { data: ADMIN });
  expect(res.status(), await res.text()).toBe(200);
  return new Api({ token: (await res.json()).data.attributes.token });
}

test("Test connection on a saved source: failure with the reason, fixed in the form without retyping the password", async ({
  page,
  consoleErrors,
  request,
}) => {
  test.setTimeout(300_000);
  void consoleErrors;
  // Saved with a wrong port: the password is right but the server is not there.
  const name = `Checked source ${Math.random().toString(36).slice(2, 8)}`;
  const api = await adminApi(request);
  const created = await api.post(url("/api/v1/connectors"), {
    connector: { name, connector_type: "source", connector_name: "Postgresql", configuration: { ...pw!.configuration(USER, PASSWORD), port: 1, connect_timeout: 3 } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).data.id as string;

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url(`/sources/${id}`));
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible({ timeout: 60_000 });

  await page.getByRole("button", { name: "Test connection" }).click();
  const result = page.getByTestId("check-result");
  await expect(result).toContainText("Connection failed", { timeout: 60_000 });
  await expect(result).toContainText("Could not connect to 127.0.0.1:1: connection refused");
  await shot(page, "connector-check-failed");

  // Edit: fix the port. The password field shows the mask, but a stored secret only goes to the
  // target it was entered for, so changing the port empties it and says why.
  await page.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByLabel("Password")).toHaveValue("*************");
  await page.getByLabel("Port").fill(String(pw!.port));
  await expect(page.getByRole("note")).toContainText("port changed: enter the secrets again");
  await expect(page.getByLabel("Password")).toHaveValue("");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(result).toContainText("Connection succeeded", { timeout: 60_000 });
  await expect(result).toContainText("PostgreSQL");

  // A wrong password typed into the form is tried as typed, and the answer says what is wrong.
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(result).toContainText(`Password authentication failed for user "${USER}"`, { timeout: 60_000 });
  await expect(result).not.toContainText("not-the-password");

  // Trying did not save: the saved connector still fails, until the fix is saved.
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(result).toContainText("Connection failed", { timeout: 60_000 });
  await page.getByRole("button", { name: "Edit" }).click();
  await page.getByLabel("Port").fill(String(pw!.port));
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByTestId("toast-success").filter({ hasText: `"${name}" saved.` })).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(result).toContainText("Connection succeeded", { timeout: 60_000 });
  await shot(page, "connector-check-succeeded");
});
