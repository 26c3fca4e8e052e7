// Fault: the application database restarts in the middle of a run. The app database here is an
// embedded PostgreSQL (temp folder, free port) that the test stops and starts; route handlers run in
// this process, the sync worker is a real worker process. While the database is down the API answers
// 503 (health, readiness, API calls) instead of crashing or hanging; afterwards it recovers by itself,
// and the interrupted run either resumes or fails with a reason, and a re-run converges.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import { closeDatabase } from "@/lib/db/client";
import { migrateDatabase } from "@/lib/db/migrate";
import { seed } from "@/lib/db/seed";
import { stopEngine, triggerSync } from "@/lib/engine";
import {
  catalogOf,
  createFixture,
  pgConnectorConfig,
  reloadRun,
  spawnWorker,
  sql,
  stopWorker,
  tableStream,
  waitFor,
} from "@/lib/engine/test-support";
import { createScratchDatabase } from "@/tests/support/db";
import { GET as health } from "@/app/api/health/route";
import { GET as ready } from "@/app/api/ready/route";
import { POST as login } from "@/app/api/v1/login/route";
import { GET as listSyncs } from "@/app/api/v1/syncs/route";

const ADMIN = { email: "restart-admin@example.com", password: "restart-admin-password" };
const ROWS = 20_000;
const dir = mkdtempSync(path.join(tmpdir(), "ds-ops-restart-"));
let port = 0;
let pg: EmbeddedDatabase | undefined;
let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };
const workers: ReturnType<typeof spawnWorker>[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const p = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return p;
}

const req = (url: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  new NextRequest(new URL(url, "http://127.0.0.1"), {
    method: init.method ?? "GET",
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });

beforeAll(async () => {
  process.env.ADMIN_EMAIL = ADMIN.email;
  process.env.ADMIN_PASSWORD = ADMIN.password;
  port = await freePort();
  pg = await startEmbeddedPostgres({ dataDir: dir, port });
  process.env.DATABASE_URL = pg.url;
  await migrateDatabase(pg.url);
  await seed();
  source = await createScratchDatabase("ds_ops_rs_src");
  destination = await createScratchDatabase("ds_ops_rs_dst");
  await sql(source.url, `CREATE TABLE t AS SELECT g AS id, 'Row ' || g AS name FROM generate_series(1, ${ROWS}) g`);
  await sql(source.url, "ALTER TABLE t ADD PRIMARY KEY (id)");
  await sql(destination.url, "CREATE TABLE t (id integer PRIMARY KEY, name text NOT NULL)");
}, 180_000);

afterAll(async () => {
  for (const w of workers) await stopWorker(w, "SIGKILL");
  await stopEngine().catch(() => undefined);
  await closeDatabase().catch(() => undefined);
  await pg?.stop().catch(() => undefined);
  await source?.drop();
  await destination?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the application database restarts during a run", () => {
  it("answers 503 while it is down, recovers after, and the run resumes or fails with a reason", { timeout: 240_000 }, async () => {
    const signIn = await login(req("/api/v1/login", { method: "POST", body: ADMIN }));
    expect(signIn.status).toBe(200);
    const token = ((await signIn.json()) as { data: { attributes: { token: string } } }).data.attributes.token;
    expect((await health()).status).toBe(200);
    expect((await listSyncs(req("/api/v1/syncs", { token }))).status).toBe(200);

    // 500 rows per write at 8 writes per second: about 5 s of loading, time enough to pull the plug.
    const f = await createFixture({
      sourceUrl: source.url,
      destination: {
        connectorName: "Postgresql",
        config: pgConnectorConfig(destination.url),
        catalog: catalogOf(tableStream("t", { batch_size: 500 }), { request_rate_limit: 8, request_rate_limit_unit: "second", request_rate_concurrency: 2 }),
      },
      query: "SELECT id, name FROM t",
      sync: { configuration: [{ from: "id", to: "id", mapping_type: "standard" }, { from: "name", to: "name", mapping_type: "standard" }] },
    });
    const worker = spawnWorker(pg!.url, { ENGINE_BATCH_SIZE: "2000", WORKER_SCHEDULER: "0" });
    workers.push(worker);
    const run = await triggerSync(f.workspaceId, f.syncId);
    await waitFor(async () => ((await reloadRun(run.id)).successfulRows >= 4000 ? true : undefined), 90_000, () => `progress; worker:\n${worker.output()}`);

    // Down.
    await pg!.stop();
    const downHealth = await health();
    expect(downHealth.status).toBe(503);
    expect(await downHealth.json()).toEqual({ status: "degraded", database: "down" });
    expect((await ready()).status).toBe(503);
    for (const res of [await listSyncs(req("/api/v1/syncs", { token })), await login(req("/api/v1/login", { method: "POST", body: ADMIN }))]) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBeTruthy();
      expect(await res.json()).toMatchObject({ status: "service_unavailable", message: expect.stringMatching(/database/i) });
    }
    await new Promise((r) => setTimeout(r, 2_000));

    // Up again: the same process recovers without a restart.
    pg = await startEmbeddedPostgres({ dataDir: dir, port });
    const recovered = await waitFor(async () => ((await health()).status === 200 ? true : undefined), 30_000, "health to recover");
    expect(recovered).toBe(true);
    expect((await ready()).status).toBe(200);
    expect((await listSyncs(req("/api/v1/syncs", { token }))).status).toBe(200);

    // The worker survived (it did not crash on the lost connections) and the run ended with an outcome.
    const done = await waitFor(
      async () => {
        const r = await reloadRun(run.id);
        return ["success", "failed", "canceled"].includes(r.status) ? r : undefined;
      },
      120_000,
      `run ${run.id} to end; worker (exit ${worker.exitCode}):\n${worker.output()}`,
    );
    expect(worker.exitCode, `worker output:\n${worker.output()}`).toBeNull();
    if (done.status === "failed") expect(done.error).toBeTruthy();
    else expect(done.status).toBe("success");
    console.log(`app database restart: run ${run.id} ended ${done.status} after ${done.attempts} attempt(s)${done.error ? `: ${done.error}` : ""}`);

    // A re-run converges: the destination equals the source.
    if (done.status !== "success") {
      const again = await waitFor(
        async () => {
          const r = await reloadRun((await triggerSync(f.workspaceId, f.syncId)).id);
          return r;
        },
        10_000,
        "re-run to be queued",
      );
      const final = await waitFor(
        async () => {
          const r = await reloadRun(again.id);
          return ["success", "failed", "canceled"].includes(r.status) ? r : undefined;
        },
        120_000,
        `re-run to end; worker:\n${worker.output()}`,
      );
      expect(final.status).toBe("success");
    }
    const [src] = await sql<{ n: string; md5: string }>(source.url, "SELECT count(*) AS n, md5(string_agg(id || name, ',' ORDER BY id)) AS md5 FROM t");
    const [dst] = await sql<{ n: string; md5: string }>(destination.url, "SELECT count(*) AS n, md5(string_agg(id || name, ',' ORDER BY id)) AS md5 FROM t");
    expect(dst).toEqual(src);
  });
});
