// Settings → Webhooks: an Admin adds an endpoint (a metadata URL is refused with the server's
// sentence), copies the secret shown once, sees it masked in the list, sends a test event from the
// webhook's page and watches the delivery succeed at a receiver this spec runs on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ADMIN } from "../support/api";
import { expect, shot, signIn, test, url } from "./fixtures";

let server: Server;
let receiver: string;
const events: string[] = [];

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      events.push(String(req.headers["datasync-event-type"]));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/console-hook`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

test("an Admin creates a webhook, sees its secret once, and sends a test event", async ({ page, consoleErrors }) => {
  test.setTimeout(300_000);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(url("/settings/webhooks"));
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "New webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "New webhook" });

  // The network policy speaks through the form.
  await dialog.getByLabel("Endpoint URL").fill("http://169.254.169.254/latest/meta-data");
  await dialog.getByRole("button", { name: "Create webhook" }).click();
  await expect(dialog.getByRole("alert")).toContainText("metadata");
  // The browser logs that refused request's 422; it is the one error this page may show.
  await expect.poll(() => consoleErrors.findIndex((e) => e.includes("status of 422"))).toBeGreaterThanOrEqual(0);
  consoleErrors.splice(consoleErrors.findIndex((e) => e.includes("status of 422")), 1);

  await dialog.getByLabel("Endpoint URL").fill(receiver);
  await dialog.getByLabel("sync_run.started").uncheck();
  await expect(dialog.getByLabel("All syncs")).toBeChecked();
  await dialog.getByRole("button", { name: "Create webhook" }).click();

  const secretDialog = page.getByRole("dialog", { name: "Copy the signing secret" });
  const secret = await secretDialog.getByLabel("Signing secret").inputValue();
  expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
  await secretDialog.getByRole("button", { name: "Done" }).click();

  const table = page.getByRole("table", { name: "Webhooks" });
  const row = table.getByRole("row").filter({ hasText: receiver });
  await expect(row).toContainText(`whsec_…${secret.slice(-4)}`);
  await expect(row).toContainText("sync_run.succeeded, sync_run.failed, sync_run.needs_approval");
  await expect(page.getByText(secret)).toHaveCount(0);
  await shot(page, "webhooks");

  await row.getByRole("link", { name: receiver }).click();
  await expect(page.getByRole("heading", { level: 1, name: receiver })).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Send test event" }).click();
  const deliveries = page.getByRole("table", { name: "Deliveries" });
  await expect(deliveries.getByRole("row").filter({ hasText: "ping" })).toContainText("succeeded", { timeout: 30_000 });
  expect(events).toContain("ping");
  await deliveries.getByRole("button", { name: "ping" }).click();
  await expect(page.getByRole("table", { name: "Attempts" })).toContainText("200");
  await shot(page, "webhook-detail");
});
