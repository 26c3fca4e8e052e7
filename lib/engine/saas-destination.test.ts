// A sync into a REST-kit destination end to end: PostgreSQL rows → the engine → the HubSpot
// emulator (tests/emulators/hubspot.ts), throttled to one request a second. The run delivers every
// good row in requests of at most 100, waits out the 429s for the interval the rate-limit headers
// name, and records the one row HubSpot refuses with HubSpot's own words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hubspotDestination } from "@/lib/connectors/hubspot/destination";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { parseBody } from "@/tests/emulators/common";
import { startHubspotEmulator } from "@/tests/emulators/hubspot";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { createFixture, createPeople, reloadRun, runRecords, sql } from "./test-support";

useTestDatabase();

const TOKEN = "pat-na1-engine-test-token";
let source: { url: string; drop(): Promise<void> };
let hub: Awaited<ReturnType<typeof startHubspotEmulator>>;
const previousAllow = process.env.OUTBOUND_ALLOW_PRIVATE;

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  source = await createScratchDatabase("ds_src");
  await createPeople(source.url, 250);
  await sql(source.url, "UPDATE people SET email = 'bad@' WHERE id = 7");
  hub = await startHubspotEmulator({ token: TOKEN, maxPerInterval: 1000, intervalMs: 1000 });
});

afterAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = previousAllow;
  await hub?.close();
  await stopEngine();
  await source?.drop();
});

describe("a sync into HubSpot (REST kit) through the engine", () => {
  it("delivers in batches of 100, honours the rate-limit wait, and fails only the refused row", { timeout: 60_000 }, async () => {
    const config = { access_token: TOKEN, base_url: hub.url, timeout: 10 };
    const catalog = await hubspotDestination.discover(config);
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Hubspot", config, catalog },
      query: "SELECT id, name, email FROM people",
      sync: {
        configuration: [
          { from: "email", to: "email", mapping_type: "standard" },
          { from: "name", to: "firstname", mapping_type: "standard" },
        ],
      },
    });
    // One request a second from here on: the run's second request is throttled at once.
    hub.window.max = 1;
    hub.window.reset();
    hub.requests.length = 0;
    const run = await triggerSync(f.workspaceId, f.syncId);
    expect(await executeRun(run.id)).toBe("success");

    expect(await reloadRun(run.id)).toMatchObject({ successfulRows: 249, failedRows: 1 });
    const failed = (await runRecords(run.id)).filter((r) => r.status === "failed");
    expect(failed.map((r) => [r.primaryKey, r.error])).toEqual([["7", expect.stringContaining("Email address bad@ is invalid")]]);
    expect(JSON.stringify(failed[0].logs)).not.toContain(TOKEN);
    expect(hub.contacts.size).toBe(249);

    const posts = hub.requests.filter((r) => r.method === "POST").map((r) => (parseBody(r) as { inputs: unknown[] }).inputs.length);
    expect(Math.max(...posts)).toBeLessThanOrEqual(100);
    // More requests than the 3 batches: the throttled ones were sent again, after the wait.
    expect(posts.length).toBeGreaterThan(3);
  });
});
