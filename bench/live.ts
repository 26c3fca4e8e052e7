// Live syncs (docs/live-syncs.md): end-to-end latency from a committed source change to the written
// destination row at paced rates, and the live path's throughput against the batch engine's, both
// through a real worker. The source is a private PostgreSQL with wal_level=logical (the embedded one;
// the bench's server may run wal_level=replica) and track_commit_timestamp=on, so each source row's
// commit time is pg_xact_commit_timestamp(xmin); the destination table stamps each row as it is
// written (arrived_at DEFAULT clock_timestamp()). Both servers run on this machine: one clock.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { liveSlotName } from "@/lib/connectors/live";
import { loadDestination } from "@/lib/connectors/registry";
import { prisma } from "@/lib/db/client";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import { transitionSyncStatus, triggerSync } from "@/lib/engine";
import { freePort } from "@/tests/support/free-port";
import { createSync, pgConfig, readRun, runSync } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { query } from "./lib/pg";
import { phases } from "./sync";
import { spawnTs, type Child } from "./lib/process";
import { fmt } from "./lib/report";

const COLUMNS = "id, payload, n";
const MAPPING = COLUMNS.split(", ").map((c) => ({ from: c, to: c, mapping_type: "standard" }));
const RATES = [1_000, 10_000];
/** The paced writer commits what is due every tick. */
const TICK_MS = 20;

interface Sizes {
  /** Rows of the batch baseline's table, and of the live path's burst. */
  rows: number;
  /** Seconds each paced rate writes. */
  seconds: number;
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`live: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Commits `rate` inserts per second for `seconds`, in a transaction per tick; the rate reached. */
async function pacedWrites(sourceUrl: string, firstId: number, rate: number, seconds: number): Promise<{ rows: number; rate: number }> {
  const client = new Client({ connectionString: sourceUrl });
  await client.connect();
  try {
    const started = performance.now();
    let written = 0;
    const total = rate * seconds;
    while (written < total) {
      const due = Math.min(total, Math.floor((rate * (performance.now() - started)) / 1000)) - written;
      if (due > 0) {
        await client.query(`INSERT INTO events (${COLUMNS}) SELECT g, md5(g::text), g % 1000 FROM generate_series($1::bigint, $2::bigint) g`, [
          firstId + written,
          firstId + written + due - 1,
        ]);
        written += due;
      }
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
    return { rows: written, rate: written / ((performance.now() - started) / 1000) };
  } finally {
    await client.end();
  }
}

/** Milliseconds from each source row's commit to its destination row's write, for ids from..to. */
async function latencies(sourceUrl: string, destinationUrl: string, from: number, to: number): Promise<Float64Array> {
  const committed = await query<{ id: string; at: number }>(
    sourceUrl,
    "SELECT id::text, extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 * 1000 AS at FROM events WHERE id BETWEEN $1 AND $2",
    [from, to],
  );
  const arrived = await query<{ id: string; at: number }>(
    destinationUrl,
    "SELECT id::text, extract(epoch FROM arrived_at)::float8 * 1000 AS at FROM events_live WHERE id BETWEEN $1 AND $2",
    [from, to],
  );
  const at = new Map(arrived.map((r) => [r.id, r.at]));
  const out = new Float64Array(committed.length);
  committed.forEach((r, i) => (out[i] = (at.get(r.id) ?? NaN) - r.at));
  return out.sort();
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function arrivedCount(destinationUrl: string, from: number, to: number): Promise<number> {
  const [r] = await query<{ n: number }>(destinationUrl, "SELECT count(*)::int AS n FROM events_live WHERE id BETWEEN $1 AND $2", [from, to]);
  return r.n;
}

async function startSource(ctx: BenchContext): Promise<{ server: EmbeddedDatabase; url: string; adminUrl: string; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "ds-bench-logical-"));
  const server = await startEmbeddedPostgres({
    dataDir: dir,
    port: await freePort(),
    settings: { wal_level: "logical", track_commit_timestamp: "on", max_replication_slots: "4", max_wal_senders: "4" },
  });
  const adminUrl = new URL(server.url);
  adminUrl.pathname = "/postgres";
  await query(adminUrl.toString(), "CREATE DATABASE live_source");
  const url = new URL(server.url);
  url.pathname = "/live_source";
  ctx.log(`live: source PostgreSQL (wal_level=logical) on ${url.host}`);
  return { server, url: url.toString(), adminUrl: adminUrl.toString(), dir };
}

export async function benchLive(ctx: BenchContext): Promise<void> {
  const { args, report } = ctx;
  if (args.smoke && args.only !== "live") {
    const line = "live: skipped at --smoke (it starts its own wal_level=logical PostgreSQL and worker and paces writes for seconds); `npm run bench -- --only live --smoke` runs it small";
    ctx.log(line);
    report.note(line);
    return;
  }
  const sizes: Sizes = args.smoke ? { rows: Math.min(args.rows, 10_000), seconds: 3 } : { rows: args.rows, seconds: 10 };
  const source = await startSource(ctx);
  let worker: Child | undefined;
  try {
    worker = spawnTs("scripts/worker.ts", {
      DATABASE_URL: ctx.appUrl,
      WORKER_SCHEDULER: "0",
      WORKER_CONCURRENCY: "2",
      LOG_LEVEL: "info",
      ENGINE_LIVE_PERIOD_SECONDS: "300",
    });
    await worker.waitFor(/worker started/, 120_000, "the live worker to start");
    await measure(ctx, source, sizes);
  } catch (err) {
    if (worker) console.error(`live worker output (tail):\n${worker.output().slice(-3000)}`);
    throw err;
  } finally {
    await worker?.stop();
    await source.server.stop().catch(() => undefined);
    await rm(source.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function measure(ctx: BenchContext, source: { url: string; adminUrl: string }, sizes: Sizes): Promise<void> {
  const { report } = ctx;
  const n = sizes.rows;
  await query(source.url, "CREATE TABLE events (id bigint PRIMARY KEY, payload text NOT NULL, n integer NOT NULL)");
  await query(source.url, `INSERT INTO events (${COLUMNS}) SELECT g, md5(g::text), g % 1000 FROM generate_series(1, $1::bigint) g`, [n]);
  await query(source.url, "VACUUM ANALYZE events");
  await query(ctx.destinationUrl, "DROP TABLE IF EXISTS events_batch, events_live");
  await query(ctx.destinationUrl, "CREATE TABLE events_batch (id bigint PRIMARY KEY, payload text NOT NULL, n integer NOT NULL)");
  await query(
    ctx.destinationUrl,
    "CREATE TABLE events_live (id bigint PRIMARY KEY, payload text NOT NULL, n integer NOT NULL, arrived_at timestamptz NOT NULL DEFAULT clock_timestamp())",
  );
  const config = pgConfig(ctx.destinationUrl);
  const discovered = await (await loadDestination("Postgresql")).discover(config);
  const catalogFor = (table: string) => ({ ...discovered, streams: discovered.streams.filter((s) => s.name === table) });

  // The batch engine's rows/s on the same rows, through the same worker: a scheduled full sync.
  const batch = await createSync({ workspaceId: ctx.workspaceId, sourceUrl: source.url, query: `SELECT ${COLUMNS} FROM events`, destination: { connectorName: "Postgresql", config, catalog: catalogFor("events_batch") }, configuration: MAPPING });
  ctx.log(`live: batch baseline, full sync of ${n.toLocaleString("en-US")} rows`);
  const batchRun = await runSync(ctx.workspaceId, batch.syncId);
  const batchRate = batchRun.total_rows / (batchRun.duration_ms / 1000);

  // The live sync streams the rows written from here on (its WHERE leaves the baseline's rows out).
  const live = await createSync({
    workspaceId: ctx.workspaceId,
    sourceUrl: source.url,
    query: `SELECT ${COLUMNS} FROM events WHERE id > ${n}`,
    destination: { connectorName: "Postgresql", config, catalog: catalogFor("events_live") },
    configuration: MAPPING,
  });
  await prisma().sync.update({ where: { id: live.syncId }, data: { live: true } });
  const run = await triggerSync(ctx.workspaceId, live.syncId);
  await until(
    async () => {
      const sync = await prisma().sync.findUniqueOrThrow({ where: { id: live.syncId } });
      const r = await readRun(run.id);
      if (["success", "failed", "canceled"].includes(r.status)) throw new Error(`live: the run ended ${r.status} before streaming: ${r.error ?? ""}`);
      const active = await query(source.adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL", [liveSlotName(live.syncId)]);
      return sync.liveLsn !== null && active.length === 1 ? true : undefined;
    },
    120_000,
    "the live sync to stream",
  );

  let next = n + 1;
  let paced = 0;
  for (const rate of RATES) {
    ctx.log(`live: ${rate.toLocaleString("en-US")} changes/s for ${sizes.seconds} s`);
    const from = next;
    const written = await pacedWrites(source.url, from, rate, sizes.seconds);
    next += written.rows;
    paced += written.rows;
    const to = next - 1;
    const drainStart = performance.now();
    await until(async () => ((await arrivedCount(ctx.destinationUrl, from, to)) === written.rows ? true : undefined), 600_000, `${written.rows} rows at ${rate}/s to arrive`);
    const drained = (performance.now() - drainStart) / 1000;
    const lat = await latencies(source.url, ctx.destinationUrl, from, to);
    const rateNote = `${written.rows.toLocaleString("en-US")} inserts at ${Math.round(written.rate).toLocaleString("en-US")}/s in transactions every ${TICK_MS} ms; last row ${fmt(drained, "s")} after the writer stopped`;
    report.add({ section: "live", name: `latency p50, ${rate.toLocaleString("en-US")} changes/s`, value: percentile(lat, 50), unit: "ms", note: rateNote });
    report.add({ section: "live", name: `latency p99, ${rate.toLocaleString("en-US")} changes/s`, value: percentile(lat, 99), unit: "ms", note: `max ${fmt(lat[lat.length - 1], "ms")}` });
  }

  // Throughput: n rows committed as fast as one writer can (transactions of 1,000), until the last arrives.
  ctx.log(`live: burst of ${n.toLocaleString("en-US")} rows`);
  const from = next;
  const to = next + n - 1;
  const writer = new Client({ connectionString: source.url });
  await writer.connect();
  try {
    for (let id = from; id <= to; id += 1000) {
      await writer.query(`INSERT INTO events (${COLUMNS}) SELECT g, md5(g::text), g % 1000 FROM generate_series($1::bigint, $2::bigint) g`, [id, Math.min(to, id + 999)]);
    }
  } finally {
    await writer.end();
  }
  await until(async () => ((await arrivedCount(ctx.destinationUrl, from, to)) === n ? true : undefined), 1_800_000, `the burst of ${n} rows to arrive`);
  const [span] = await query<{ first: number }>(source.url, "SELECT min(extract(epoch FROM pg_xact_commit_timestamp(xmin)))::float8 * 1000 AS first FROM events WHERE id BETWEEN $1 AND $2", [from, to]);
  const [last] = await query<{ last: number }>(ctx.destinationUrl, "SELECT max(extract(epoch FROM arrived_at))::float8 * 1000 AS last FROM events_live WHERE id BETWEEN $1 AND $2", [from, to]);
  const liveRate = n / ((last.last - span.first) / 1000);
  report.add({
    section: "live",
    name: "live path throughput (first commit to last row written)",
    value: Math.round(liveRate),
    unit: "rows/s",
    baseline: { name: "batch engine, full sync of the same rows", value: Math.round(batchRate), unit: "rows/s" },
    note: `${n.toLocaleString("en-US")} inserts in transactions of 1,000`,
  });

  // Stopped: the run ends, drops its slot; the records are all there, none failed.
  await transitionSyncStatus(ctx.workspaceId, live.syncId, "disabled");
  await until(async () => (["success", "failed", "canceled"].includes((await readRun(run.id)).status) ? true : undefined), 60_000, "the live run to stop");
  const ended = await readRun(run.id);
  const slot = await until(
    async () => ((await query(source.adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(live.syncId)])).length === 0 ? "dropped" : undefined),
    60_000,
    "the slot to be dropped",
  );
  report.note(
    `live: batch baseline ${batchRun.total_rows.toLocaleString("en-US")} rows in ${fmt(batchRun.duration_ms / 1000, "s")}; the live run streamed ${(paced + n).toLocaleString("en-US")} rows, recorded ${ended.successful_rows.toLocaleString("en-US")} successful and ${ended.failed_rows} failed records; slot ${slot} on disable`,
  );
  // Summed over the run's micro-batches, which run one after another: where a change's time goes.
  report.note(`live run by phase: ${phases(ended)}; batch baseline by phase: ${phases(batchRun)}`,
  );
}
