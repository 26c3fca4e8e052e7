// npm run bench -- [--rows N] [--smoke] [--only sync|mariadb|clickhouse|http|live|api|mapping|scale] [--json]
// Sync throughput against a raw COPY baseline (PostgreSQL → PostgreSQL, MariaDB ↔ PostgreSQL,
// ClickHouse → PostgreSQL), HTTP destination throughput and rate limiting, live syncs' latency and
// throughput against the batch engine's, API latency under load,
// worker memory, scale-out over worker processes. Every figure is measured in the same run as its
// baseline and printed as a ratio, with the machine's core count. See bench/README.md.
import "./lib/env";
import os from "node:os";
import path from "node:path";
import { closeDatabase } from "@/lib/db/client";
import { stopEngine } from "@/lib/engine";
import { benchApi } from "./api";
import { benchClickhouse } from "./clickhouse";
import { benchHttp } from "./http";
import { benchLive } from "./live";
import { benchMapping } from "./mapping";
import { benchMariadb } from "./mariadb";
import { benchScale } from "./scale";
import { prepareAppDatabase, createWorkspace } from "./lib/app";
import { parseArgs, type BenchArgs, type Section } from "./lib/args";
import type { BenchContext } from "./lib/context";
import { fillCustomers, PgServer } from "./lib/pg";
import { spawnTs } from "./lib/process";
import { renderTable, Report, writeJson } from "./lib/report";
import { benchSync } from "./sync";

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const wants = (s: Section) => !args.only || args.only === s;
  const report = new Report();
  const t0 = performance.now();
  const loadAtStart = os.loadavg()[0];
  const log = (line: string) => console.error(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}`);

  // CPU only and first, before the databases and the worker load the machine further.
  if (wants("mapping")) benchMapping(args, report, log);
  if (args.only === "mapping") return finish(report, args, loadAtStart, log, false);

  const server = await PgServer.open();
  log(`PostgreSQL: ${new URL(server.adminUrl).host}`);
  await server.dropStale();
  const appUrl = await server.freshDatabase("app");
  const sourceUrl = await server.freshDatabase("src");
  const destinationUrl = await server.freshDatabase("dst");
  await prepareAppDatabase(appUrl);
  const ctx: BenchContext = { args, report, server, appUrl, sourceUrl, destinationUrl, workspaceId: await createWorkspace("Bench"), log };

  let failed = false;
  try {
    if (wants("sync") || wants("mariadb") || wants("clickhouse") || wants("http")) {
      if (wants("sync") || wants("mariadb") || wants("http")) {
        log(`source: ${args.rows.toLocaleString("en-US")} customers`);
        await fillCustomers(sourceUrl, "customers", args.rows);
      }
      const workerEnv = { DATABASE_URL: appUrl, WORKER_SCHEDULER: "0", WORKER_CONCURRENCY: "1", LOG_LEVEL: "info" };
      const nodeArgs = [...(args.cpuProf ? ["--cpu-prof", "--cpu-prof-dir", path.resolve("bench/results")] : []), ...(process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? [])];
      ctx.worker = spawnTs("scripts/worker.ts", workerEnv, nodeArgs);
      await ctx.worker.waitFor(/worker started/, 60_000, "the worker to start");
      // Let the worker settle (pg-boss maintenance, first polls) before its idle RSS is read.
      await new Promise((r) => setTimeout(r, 1500));
      if (wants("sync")) await benchSync(ctx);
      // A MariaDB failure (e.g. a connector bug) fails the run but does not stop the other sections.
      if (wants("mariadb")) {
        await benchMariadb(ctx).catch((err: unknown) => {
          failed = true;
          console.error(err instanceof Error ? err.message : err);
        });
      }
      if (wants("clickhouse")) {
        await benchClickhouse(ctx).catch((err: unknown) => {
          failed = true;
          console.error(err instanceof Error ? err.message : err);
        });
      }
      if (wants("http")) await benchHttp(ctx);
    }
    if (wants("live")) {
      // Its own worker (the live run holds a slot of it): the sync worker must not take its jobs.
      await ctx.worker?.stop();
      ctx.worker = undefined;
      await benchLive(ctx).catch((err: unknown) => {
        failed = true;
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
      });
    }
    if (wants("scale")) {
      // Its own workers on the same application database: the sync worker must not take their jobs.
      await ctx.worker?.stop();
      ctx.worker = undefined;
      await benchScale(ctx);
    }
    if (wants("api")) await benchApi(ctx);
  } catch (err) {
    failed = true;
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    if (ctx.worker) console.error(`worker output (tail):\n${ctx.worker.output().slice(-3000)}`);
  } finally {
    await ctx.worker?.stop();
    await stopEngine().catch(() => undefined);
    await closeDatabase();
    if (!args.keep) await server.dropOwn();
    await server.close();
  }

  finish(report, args, loadAtStart, log, failed);
}

function finish(report: Report, args: BenchArgs, loadAtStart: number, log: (line: string) => void, failed: boolean): void {
  // Other work on the machine skews absolute figures; ratios measured in the same run much less.
  report.note(`1-minute load average: ${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end (${os.cpus().length} cores)`);
  console.log(`\n${renderTable(report, args)}\n`);
  if (args.json) console.log(`results: ${writeJson(report, args)}`);
  log("done");
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
