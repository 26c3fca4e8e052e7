// The sync wizard's common walk, for console specs: from a model to the mapping step (the required
// fields pre-filled), and from the last step to the created sync. Steps in between are each spec's own.
import type { Page } from "@playwright/test";
import { expect, url } from "./fixtures";

/** Opens the wizard on a model, picks the destination and stream, and waits for the pre-filled mapping. */
export async function wizardToMapping(page: Page, modelId: number, destinationName: string, stream = "contacts"): Promise<void> {
  await page.goto(url(`/syncs/new?model=${modelId}`));
  await expect(page.getByLabel("Model")).toHaveValue(String(modelId));
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio", { name: new RegExp(destinationName) }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Stream").selectOption(stream);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Mapping 1 destination field", { exact: true })).not.toHaveValue("", { timeout: 60_000 });
}

/** Past `steps` more steps (mapping, mode, schedule by default) to the name, then creates: the new sync's id. */
export async function createFromWizard(page: Page, name: string, { steps = 3, button = "Create sync" } = {}): Promise<string> {
  for (let i = 0; i < steps; i++) await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL(/\/syncs\/\d+$/);
  return new URL(page.url()).pathname.split("/").pop() as string;
}
