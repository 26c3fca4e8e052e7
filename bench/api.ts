// 4. The API under load: the real product (scripts/start.ts, RUN_WORKER=0) on its own bench
// database, 10k syncs and a 1M-record run inserted with set-based SQL; autocannon with 50
// connections on GET /api/v1/syncs and on a page of the big run's records, each against
// GET /api/health measured in the same run. Twice: with the database idle (answers are remembered
// while it does not change: lib/http/remembered.ts), and while another database of the same server
// commits every 10 ms, as it does while a sync runs (every answer computed).
import net from "node:net";
import path from "node:path";
import autocannon, { type Result } from "autocannon";
import { Client } from "pg";
import { encryptJson } from "@/lib/crypto/encryption";
import { WEB_NODE_FLAGS } from "../scripts/web-node-flags";
import { CUSTOMER_MAPPING, pgConfig } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { withClient } from "./lib/pg";
import { CpuMeter, spawnTs, type Child } from "./lib/process";
import { fmt } from "./lib/report";

const CONNECTIONS = 50;
const SYNCS = 10_000;
const ADMIN = { email: "bench@example.com", password: "bench-admin-password-0123" };

/**
 * Starts the server and waits for /api/health. When another `next build` holds the build lock (a
 * test run on the same checkout), waits for it and starts again.
 */
async function startServer(ctx: BenchContext, base: string, env: Record<string, string>): Promise<Child> {
  // The V8 flags `npm start` gives the server; --cpu-prof profiles it (written into bench/results when it stops).
  const nodeArgs = [...WEB_NODE_FLAGS, ...(ctx.args.cpuProf ? ["--cpu-prof", "--cpu-prof-dir", path.resolve("bench/results")] : [])];
  for (let attempt = 1; ; attempt++) {
    const web = spawnTs("scripts/start.ts", env, nodeArgs);
    const deadline = Date.now() + 20 * 60_000;
    for (;;) {
      const up = await fetch(`${base}/api/health`).then((r) => r.ok, () => false);
      if (up) return web;
      if (web.process.exitCode !== null) {
        if (attempt < 5 && /build to complete|already running/i.test(web.output())) {
          ctx.log("api: another next build is running on this checkout; waiting 30 s");
          await new Promise((r) => setTimeout(r, 30_000));
          break;
        }
        throw new Error(`the server exited:\n${web.output().slice(-3000)}`);
      }
      if (Date.now() > deadline) {
        await web.stop();
        throw new Error(`the server did not come up:\n${web.output().slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** 10k syncs (one finished run each) and one run of `records` records, all set-based. */
async function seed(url: string, records: number, sourceUrl: string): Promise<{ workspaceId: number; syncId: number; runId: number }> {
  return withClient(url, async (c) => {
    const { rows: ws } = await c.query<{ id: number }>("SELECT id FROM workspaces WHERE slug = 'default'");
    const workspaceId = ws[0].id;
    const config = encryptJson(pgConfig(sourceUrl));
    const connector = async (type: string, name: string) =>
      (
        await c.query<{ id: number }>(
          `INSERT INTO connectors (workspace_id, connector_type, connector_name, name, configuration_encrypted, created_at, updated_at)
           VALUES ($1, $2, 'Postgresql', $3, $4, now(), now()) RETURNING id`,
          [workspaceId, type, name, config],
        )
      ).rows[0].id;
    const sourceId = await connector("source", "bench source");
    const destinationId = await connector("destination", "bench destination");
    const catalog = { streams: [{ name: "customers_copy", url: "public.customers_copy", json_schema: { type: "object" }, batch_support: true, batch_size: 1000, request_method: "POST", primary_key: ["id"] }], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 4 };
    await c.query("INSERT INTO catalogs (workspace_id, connector_id, catalog, catalog_hash, created_at, updated_at) VALUES ($1, $2, $3, 'bench', now(), now())", [
      workspaceId,
      destinationId,
      JSON.stringify(catalog),
    ]);
    const { rows: m } = await c.query<{ id: number }>(
      "INSERT INTO models (workspace_id, connector_id, name, query, primary_key, created_at, updated_at) VALUES ($1, $2, 'bench model', 'SELECT * FROM customers', 'id', now(), now()) RETURNING id",
      [workspaceId, sourceId],
    );
    await c.query(
      `INSERT INTO syncs (workspace_id, source_id, destination_id, model_id, name, configuration, schedule_type, sync_mode, stream_name, status, created_at, updated_at)
       SELECT $1, $2, $3, $4, 'Bench sync ' || i, $5::jsonb, 'manual', 'incremental', 'customers_copy', 'healthy',
              now() - i * interval '1 minute', now() - i * interval '1 minute'
       FROM generate_series(1, $6::int) AS i`,
      [workspaceId, sourceId, destinationId, m[0].id, JSON.stringify(CUSTOMER_MAPPING), SYNCS],
    );
    await c.query(
      `INSERT INTO sync_runs (workspace_id, sync_id, status, sync_run_type, started_at, finished_at, total_query_rows, total_rows,
         successful_rows, processed_rows, timings, attempts, created_at, updated_at)
       SELECT workspace_id, id, 'success', 'general', updated_at, updated_at + interval '5 seconds', 100, 100, 100, 100,
              '{"query": 10, "diff": 20, "load": 300, "wait": 0}', 1, updated_at, updated_at + interval '5 seconds'
       FROM syncs WHERE workspace_id = $1`,
      [workspaceId],
    );
    const { rows: s } = await c.query<{ id: number }>("SELECT id FROM syncs WHERE workspace_id = $1 ORDER BY updated_at DESC, id DESC LIMIT 1", [workspaceId]);
    const syncId = s[0].id;
    const { rows: r } = await c.query<{ id: number }>(
      `INSERT INTO sync_runs (workspace_id, sync_id, status, sync_run_type, started_at, finished_at, total_query_rows, total_rows,
         successful_rows, processed_rows, timings, attempts, created_at, updated_at)
       VALUES ($1, $2, 'success', 'general', now(), now(), $3, $3, $3, $3, '{}', 1, now(), now()) RETURNING id`,
      [workspaceId, syncId, records],
    );
    const runId = r[0].id;
    await c.query(
      // Blocks of 1000 records, as the engine writes them (lib/engine/records/format.ts; code A: success, insert).
      `INSERT INTO sync_record_blocks (sync_id, sync_run_id, size, failed, codes, keys, rows, created_at)
       SELECT $1, $2, count(*), 0, repeat('A', count(*)::int), string_agg(i::text, E'\\n' ORDER BY i),
              string_agg('j' || jsonb_build_object('id', i, 'state', 'CA', 'last_name', 'Smith', 'first_name', 'Ada', 'phone_number', 5550000000 + i,
                                 'email_address', 'customer' || i || '@example.com', 'updated_at', '2026-01-01T00:00:00.000Z')::text, E'\\n' ORDER BY i),
              now()
       FROM generate_series(1, $3::int) AS i GROUP BY (i - 1) / 1000 ORDER BY (i - 1) / 1000`,
      [syncId, runId, records],
    );
    await c.query("VACUUM ANALYZE syncs");
    await c.query("VACUUM ANALYZE sync_runs");
    await c.query("VACUUM ANALYZE sync_record_blocks");
    return { workspaceId, syncId, runId };
  });
}

/** The answers to the requests sent in the measured window. */
interface Measured {
  /** Answers received in the window, per second. */
  perSecond: number;
  p50: number;
  p99: number;
  answered: number;
  /** Non-2xx answers by status. */
  failed: Record<string, number>;
  errors: number;
  /**
   * The web process's CPU time in the window per answer received in it: what an answer costs the
   * server, which a loaded machine stretches far less than it stretches latencies.
   */
  serverCpuMs: number;
  /** The application database's backends' CPU time in the window per answer received in it. */
  databaseCpuMs: number;
  /** autocannon's own figures over the whole run, warm-up and connection setup included. */
  whole: Result;
}

/** Answers still arriving after the window are waited for this long, so slow ones are not dropped. */
const GRACE_SECONDS = 3;

/**
 * One autocannon run of warm-up + window + grace on the same 50 connections; the figures are the
 * window's. Measuring a separate run after a warm-up would count its start: autocannon opening 50
 * connections at once made the first answers take up to 3 s by its clock while the server
 * answered each of them within 0.5 s (both measured), and those ~50 answers were the p99.
 */
async function load(url: string, pid: number, database: { adminUrl: string; name: string }, warmup: number, seconds: number, headers: Record<string, string> = {}): Promise<Measured> {
  const from = performance.now() + warmup * 1000;
  const to = from + seconds * 1000;
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  let received = 0;
  let errors = 0;
  const run = autocannon({ url, connections: CONNECTIONS, duration: warmup + seconds + GRACE_SECONDS, headers, timeout: 30 });
  // The web process's and its database's CPU over the window.
  const meter = new CpuMeter(database.adminUrl, [database.name], pid);
  let metered: Promise<{ worker: number; database: number }> | undefined;
  setTimeout(() => {
    const begun = meter.begin();
    setTimeout(() => (metered = begun.then(() => meter.end())), seconds * 1000);
  }, warmup * 1000);
  run.on("response", (_client, status, _bytes, ms) => {
    const now = performance.now();
    if (now >= from && now < to) received++;
    if (now - ms < from || now - ms >= to) return;
    latencies.push(ms);
    if (status < 200 || status >= 300) failed[status] = (failed[status] ?? 0) + 1;
  });
  run.on("reqError", () => {
    const now = performance.now();
    if (now >= from && now < to) errors++;
  });
  const whole = await run;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? latencies[Math.max(0, Math.ceil(q * latencies.length) - 1)] : NaN);
  const cpu = metered ? await metered : undefined;
  const serverCpuMs = cpu && received > 0 ? cpu.worker / received : NaN;
  const databaseCpuMs = cpu && received > 0 ? cpu.database / received : NaN;
  return { perSecond: received / seconds, p50: at(0.5), p99: at(0.99), answered: latencies.length, failed, errors, serverCpuMs, databaseCpuMs, whole };
}

/**
 * A transaction committed every 10 ms on another database of the same server, as a running sync's
 * worker commits: every commit changes the snapshot, so no remembered answer stays valid.
 */
async function churn(url: string): Promise<{ stop(): Promise<number> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  let commits = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await client.query("SELECT txid_current()");
      commits++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      return commits;
    },
  };
}

export async function benchApi(ctx: BenchContext): Promise<void> {
  const { args, report } = ctx;
  const records = args.rows;
  const seconds = args.smoke ? 3 : 20;
  const url = await ctx.server.freshDatabase("api");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  ctx.log("api: starting the product (scripts/start.ts, RUN_WORKER=0; builds the console first if it is stale)");
  const web = await startServer(ctx, base, {
    DATABASE_URL: url,
    RUN_WORKER: "0",
    PORT: String(port),
    HOST: "127.0.0.1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DATA_DIR: path.resolve(".data/bench"),
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
  });
  try {
    ctx.log(`api: inserting ${SYNCS.toLocaleString("en-US")} syncs and a run of ${records.toLocaleString("en-US")} records`);
    const { workspaceId, syncId, runId } = await seed(url, records, ctx.sourceUrl);
    const login = await fetch(`${base}/api/v1/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) });
    if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const token = ((await login.json()) as { data: { attributes: { token: string } } }).data.attributes.token;
    const headers = { authorization: `Bearer ${token}`, "workspace-id": String(workspaceId) };

    const targets = [
      { name: "GET /api/health", url: `${base}/api/health`, headers: {} },
      { name: `GET /api/v1/syncs (${SYNCS.toLocaleString("en-US")} syncs)`, url: `${base}/api/v1/syncs`, headers },
      {
        name: `GET sync_records page (run of ${records.toLocaleString("en-US")})`,
        url: `${base}/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records`,
        headers,
      },
    ];
    const database = { adminUrl: ctx.server.adminUrl, name: new URL(url).pathname.slice(1) };
    /** Each target under load, then its rows in the report (`label`: which round). */
    const round = async (label: string): Promise<{ results: Measured[]; alone: number[] }> => {
      const results: Measured[] = [];
      const alone: number[] = [];
      for (const t of targets) {
        // One connection first: tells a slow endpoint from a saturated machine.
        const times: number[] = [];
        for (let i = 0; i < (args.smoke ? 5 : 20); i++) {
          const started = performance.now();
          const probe = await fetch(t.url, { headers: t.headers });
          const body = await probe.text();
          if (!probe.ok) throw new Error(`${t.name}: ${probe.status} ${body.slice(0, 500)}`);
          times.push(performance.now() - started);
        }
        alone.push(times.sort((a, b) => a - b)[Math.floor(times.length / 2)]);
        const warmup = args.smoke ? 1 : 3;
        ctx.log(`api: ${t.name}${label}, ${warmup} s warm-up then ${seconds} s at ${CONNECTIONS} connections`);
        results.push(await load(t.url, web.pid, database, warmup, seconds, t.headers));
      }
      addRows(label, results);
      return { results, alone };
    };
    const addRows = (label: string, results: Measured[]) => {
      const [health] = results;
      targets.forEach((t, i) => {
        const r = results[i];
        const statuses = Object.entries(r.failed).map(([code, count]) => `${count}× ${code}`);
        const bad = Object.values(r.failed).reduce((a, b) => a + b, 0) + r.errors;
        const none =
          r.answered === 0
            ? "no answer within the window"
            : bad > 0
              ? `${bad} of ${r.answered + r.errors} failed: ${[...statuses, r.errors ? `${r.errors} errors` : ""].filter(Boolean).join(", ")}`
              : undefined;
        const isHealth = i === 0;
        const base = (value: number, unit: string) => (isHealth ? undefined : { name: "health", value, unit });
        const name = `${t.name}${label}`;
        report.add({ section: "api", name: `${name}: requests/s`, value: r.perSecond, unit: "req/s", baseline: base(health.perSecond, "req/s") });
        report.add({ section: "api", name: `${name}: p50`, value: r.p50, unit: "ms", baseline: base(health.p50, "ms") });
        report.add({ section: "api", name: `${name}: web process CPU per answer`, value: r.serverCpuMs, unit: "ms", baseline: base(health.serverCpuMs, "ms") });
        report.add({ section: "api", name: `${name}: database CPU per answer`, value: r.databaseCpuMs, unit: "ms", baseline: base(health.databaseCpuMs, "ms") });
        report.add({
          section: "api",
          name: `${name}: p99`,
          value: r.p99,
          unit: "ms",
          baseline: base(health.p99, "ms"),
          target: "< 100 ms",
          pass: !none && r.p99 < 100,
          note: none,
        });
      });
    };
    const { results, alone } = await round("");
    // The same while the database changes: what a client sees while syncs run.
    const changing = await churn(ctx.sourceUrl);
    let commits = 0;
    let computed: Measured[] = [];
    try {
      computed = (await round(", database changing")).results;
    } finally {
      commits = await changing.stop();
    }
    report.note(`API, database changing: ${commits.toLocaleString("en-US")} transactions committed on another database of the same server during the round (one every 10 ms), so answers are computed, not remembered`);
    const health = results[0];
    const short = (name: string) => name.replace(/ \(.*\)$/, "");
    report.note(`API, one connection, median latency: ${targets.map((t, i) => `${short(t.name)} ${fmt(alone[i], "ms")}`).join("; ")}`);
    report.note(`API load: ${CONNECTIONS} connections, ${seconds} s measured per endpoint after a warm-up on the same connections; health p99 ${fmt(health.p99, "ms")}`);
    report.note(
      `API, autocannon's own p99 over the whole run (connection setup and warm-up included): ${targets.map((t, i) => `${short(t.name)} ${fmt(results[i].whole.latency.p99, "ms")}`).join("; ")}`,
    );
    const summary = (r: Measured) => {
      const { whole, ...window } = r;
      return { window, whole: { requests: whole.requests, latency: whole.latency } };
    };
    report.extra.api = Object.fromEntries(targets.map((t, i) => [t.name, { ...summary(results[i]), changing: summary(computed[i]) }]));
  } finally {
    await web.stop();
  }
}
