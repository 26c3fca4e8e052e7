// One tenant must not starve the shared workers (security issue item 10), over real HTTP against the
// running product: workspace A's two syncs write to a destination answering 429 with
// `Retry-After: 86400`, enough to hold both of the server's worker slots for a day; workspace B's
// sync must still run to success meanwhile, while A's runs show that they wait, holding no slot.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

test.describe.configure({ timeout: 180_000 });

const src = unique("e2e_starve_src");
let a: DataWorkspace;
let b: DataWorkspace;
const servers: Server[] = [];

/** A local destination answering every request with `status` (and its headers). */
async function destination(status: number, headers: Record<string, string> = {}): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      res.writeHead(status, headers).end(status === 200 ? "ok" : "slow down");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits: () => hits };
}

async function created(ws: DataWorkspace, path: string, data: unknown): Promise<number> {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

/** A manual sync from the shared source table to an HTTP destination at `url`; returns its id. */
async function httpSync(ws: DataWorkspace, url: string): Promise<number> {
  const sourceId = await created(ws, "/api/v1/connectors", {
    connector: { name: unique("src"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const destinationId = await created(ws, "/api/v1/connectors", {
    connector: { name: unique("hook"), connector_type: "destination", connector_name: "Http", configuration: { destination_url: url, timeout: 5 } },
  });
  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const modelId = await created(ws, "/api/v1/models", {
    model: { name: unique("m"), query: `SELECT id, email FROM ${src}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  return created(ws, "/api/v1/syncs", {
    sync: {
      name: unique("sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: "webhook",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "email", to: "email", mapping_type: "standard" },
      ],
    },
  });
}

async function trigger(ws: DataWorkspace, syncId: number): Promise<string> {
  const res = await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: syncId } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.id as string;
}

async function run(ws: DataWorkspace, syncId: number, runId: string): Promise<Record<string, unknown>> {
  return (await (await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data.attributes;
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 5) g`);
  a = await dataWorkspace("starve-a");
  b = await dataWorkspace("starve-b");
});
test.afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await sql(`DROP TABLE IF EXISTS ${src}`);
});

test("a destination answering 429 with Retry-After: 86400 pauses its runs off the workers; another workspace's run completes", async () => {
  const hostile = await destination(429, { "retry-after": "86400" });
  const good = await destination(200);
  const hostileSyncs = [await httpSync(a, hostile.url), await httpSync(a, hostile.url)];
  const goodSync = await httpSync(b, good.url);

  const hostileRuns = [];
  for (const syncId of hostileSyncs) hostileRuns.push({ syncId, runId: await trigger(a, syncId) });
  // Both of A's runs have reached the destination before B asks for a worker.
  await expect.poll(() => hostile.hits(), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  const goodRun = await trigger(b, goodSync);

  await expect
    .poll(async () => String((await run(b, goodSync, goodRun)).status), { timeout: 90_000, intervals: [250, 500, 1000] })
    .toBe("success");
  expect(good.hits()).toBeGreaterThan(0);
  for (const { syncId, runId } of hostileRuns) {
    await expect.poll(async () => String((await run(a, syncId, runId)).status), { timeout: 60_000 }).toBe("paused");
    const paused = await run(a, syncId, runId);
    // Waiting for the destination, capped well below the day it asked for.
    const until = Date.parse(String(paused.waiting_until));
    expect(until).toBeGreaterThan(Date.now());
    expect(until).toBeLessThan(Date.now() + 3600_000);
    expect(paused.finished_at ?? null).toBeNull();
  }
  // Cancelling a paused run ends it.
  for (const syncId of hostileSyncs) expect((await a.admin.delete(`/api/v1/schedule_syncs/${syncId}`)).status()).toBeLessThan(300);
});
