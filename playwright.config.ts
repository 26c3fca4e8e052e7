import { defineConfig } from "@playwright/test";
import { freePortSync } from "./tests/support/free-port";

// Never a fixed default: another test run on this machine may hold it (and with reuseExistingServer
// these tests would then talk to that run's server). Set here, so the workers inherit the same one.
process.env.E2E_PORT ||= String(freePortSync());
const PORT = Number(process.env.E2E_PORT);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: { baseURL: BASE_URL, trace: "retain-on-failure", screenshot: "only-on-failure" },
  projects: [
    { name: "api", testDir: "e2e/api" },
    {
      name: "console",
      testDir: "e2e/console",
      use: {
        browserName: "chromium",
        viewport: { width: 1400, height: 900 },
        // No animation runs (app/globals.css): software-composited frames of a spinner or a pulsing
        // badge kept each browser's GPU process busy for the whole suite on 2 cores.
        reducedMotion: "reduce",
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
          ],
        },
      },
    },
  ],
  webServer: {
    command: "npx tsx --tsconfig tsconfig.node.json scripts/e2e-server.ts",
    url: `${BASE_URL}/api/health`,
    timeout: 600_000,
    reuseExistingServer: !process.env.CI,
    stdout: "pipe",
    stderr: "pipe",
    env: { PORT: String(PORT), HOST: "127.0.0.1" },
  },
});
