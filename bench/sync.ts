// 1–2. PostgreSQL → PostgreSQL: a full sync of N customers, a re-run with no change and one with 1%
// of rows changed, against the physical baseline measured in the same run between the same two
// databases: COPY (SELECT …) TO STDOUT piped into COPY … FROM STDIN. Worker memory from /proc.
import os from "node:os";
import { pipeline } from "node:stream/promises";
import { to as copyTo, from as copyFrom } from "pg-copy-streams";
import { loadDestination } from "@/lib/connectors/registry";
import type { Row } from "@/lib/connectors/types";
import { createSync, JSON_PATH_MAPPING, pgConfig, runSync, type RunRow } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { CUSTOMER_COLUMNS, customerTableDdl, query, withClient } from "./lib/pg";
import { canReadMemory, CpuMeter, cpuMsOf, memoryOf, resetPeak, type DatabaseUsage } from "./lib/process";
import { fmt } from "./lib/report";

/** One physical copy of the source table into a fresh destination table: its wall time and CPU. */
async function copyBaseline(ctx: BenchContext, table: string): Promise<{ ms: number; cpu: { pipe: number; source: number; destination: number }; faults: string }> {
  await query(ctx.destinationUrl, `DROP TABLE IF EXISTS ${table}`);
  await query(ctx.destinationUrl, customerTableDdl(table));
  const [source, destination] = [ctx.sourceUrl, ctx.destinationUrl].map((u) => new URL(u).pathname.slice(1));
  return withClient(ctx.sourceUrl, (src) =>
    withClient(ctx.destinationUrl, async (dst) => {
      // Metered with both sessions open, so neither backend has exited before the last sample.
      const meter = new CpuMeter(ctx.server.adminUrl, [source, destination], process.pid);
      await meter.begin();
      const started = performance.now();
      const out = src.query(copyTo(`COPY (SELECT ${CUSTOMER_COLUMNS} FROM customers) TO STDOUT`));
      const into = dst.query(copyFrom(`COPY ${table} (${CUSTOMER_COLUMNS}) FROM STDIN`));
      await pipeline(out, into);
      const ms = performance.now() - started;
      const cpu = await meter.end();
      const faults = `${faultsOf(cpu.workerFaults)} in the pipe, ${[source, destination].map((d) => backendFaults(cpu.usageByDatabase.get(d))).join(" and ")}`;
      return { ms, cpu: { pipe: cpu.worker, source: cpu.byDatabase.get(source) ?? 0, destination: cpu.byDatabase.get(destination) ?? 0 }, faults };
    }),
  );
}

const faultsOf = (n: number) => `${(n / 1000).toFixed(1)}k page faults`;

/** "2 backends, 12.3k page faults" for one database's part of a run. */
function backendFaults(usage: DatabaseUsage | undefined): string {
  if (!usage) return "no backend";
  return `${usage.backends} backend${usage.backends === 1 ? "" : "s"} with ${faultsOf(usage.faults)}`;
}

export function phases(run: RunRow): string {
  const t = run.timings ?? {};
  const parts = Object.entries(t)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => `${k} ${fmt((v as number) / 1000, "s")}`);
  return parts.join(", ");
}

/** Where a run's CPU is looked for besides the worker. */
export interface CpuScope {
  /** PostgreSQL databases whose backends count, with their labels: the bench's three by default. */
  databases?: { label: string; url: string }[];
  /** Other processes on this machine (the MariaDB server), counted whole: other clients included. */
  processes?: { label: string; pid: number }[];
}

/** A run with the CPU its worker and database backends spent on it, as a report note. */
export async function measuredRun(ctx: BenchContext, label: string, run: () => Promise<RunRow & { wall_ms: number }>, scope: CpuScope = {}) {
  const worker = ctx.worker as NonNullable<BenchContext["worker"]>;
  const labelled = scope.databases ?? [
    { label: "application database", url: ctx.appUrl },
    { label: "source", url: ctx.sourceUrl },
    { label: "destination", url: ctx.destinationUrl },
  ];
  const databases = labelled.map((d) => new URL(d.url).pathname.slice(1));
  const processes = (scope.processes ?? []).map((p) => ({ ...p, start: cpuMsOf(p.pid) }));
  const meter = new CpuMeter(ctx.server.adminUrl, databases, worker.pid);
  await meter.begin();
  const result = await run();
  const cpu = await meter.end();
  const perRow = (ms: number) => (result.total_query_rows > 0 ? ` (${fmt((ms * 1000) / result.total_query_rows, "µs")}/row)` : "");
  const byDatabase = labelled.map((d, i) => `${d.label} ${fmt((cpu.byDatabase.get(databases[i]) ?? 0) / 1000, "s")}`).join(", ");
  const faults = labelled.map((d, i) => `${d.label} ${backendFaults(cpu.usageByDatabase.get(databases[i]))}`).join(", ");
  const others = processes.map((p) => {
    const end = cpuMsOf(p.pid);
    return end === undefined || p.start === undefined ? "" : `, ${fmt((end - p.start) / 1000, "s")} in ${p.label}${perRow(end - p.start)}`;
  });
  ctx.report.note(
    `${label}: CPU ${fmt(cpu.worker / 1000, "s")} in the worker${perRow(cpu.worker)}, ${fmt(cpu.database / 1000, "s")} in PostgreSQL backends${perRow(cpu.database)} (${byDatabase})${others.join("")}, against ${fmt(result.duration_ms / 1000, "s")} of wall time on ${os.cpus().length} cores; the worker ${faultsOf(cpu.workerFaults)}, ${faults}`,
  );
  return result;
}

/**
 * Bytes of the bookkeeping tables with their indexes and TOAST: records, states' heap, states'
 * indexes, state blocks (with theirs).
 */
async function bookkeepingBytes(ctx: BenchContext): Promise<{ records: number; states: number; stateIndexes: number; stateBlocks: number }> {
  const [r] = await query<{ records: string; states: string; indexes: string; blocks: string }>(
    ctx.appUrl,
    `SELECT pg_total_relation_size('sync_record_blocks')::text AS records,
            (pg_total_relation_size('sync_states') - pg_indexes_size('sync_states'))::text AS states,
            pg_indexes_size('sync_states')::text AS indexes,
            coalesce(pg_total_relation_size(to_regclass('sync_state_blocks')), 0)::text AS blocks`,
  );
  return { records: Number(r.records), states: Number(r.states), stateIndexes: Number(r.indexes), stateBlocks: Number(r.blocks) };
}

/**
 * The same full sync with a template and a static value in the mapping (issue 37's "JSON path"
 * figure): each line sent is decoded and mapped, its computed columns written into the line that
 * pass-through sends (docs/architecture.md, "Three paths for rows"; the JSON path until 2026-11-29).
 */
async function templateVariant(ctx: BenchContext, config: Row, copyBase: { name: string; value: number; unit: string }) {
  const n = ctx.args.rows;
  await query(ctx.destinationUrl, customerTableDdl("customers_mapped"));
  const discovered = await (await loadDestination("Postgresql")).discover(config);
  const catalog = { ...discovered, streams: discovered.streams.filter((s) => s.name === "customers_mapped") };
  const { syncId } = await createSync({
    workspaceId: ctx.workspaceId,
    sourceUrl: ctx.sourceUrl,
    query: `SELECT ${CUSTOMER_COLUMNS} FROM customers`,
    destination: { connectorName: "Postgresql", config, catalog },
    configuration: JSON_PATH_MAPPING,
  });
  ctx.log("sync: full sync with a template and a static mapping");
  const run = await measuredRun(ctx, "template + static mapping full sync", () => runSync(ctx.workspaceId, syncId));
  const seconds = run.duration_ms / 1000;
  ctx.report.add({
    section: "sync",
    name: "full sync, template + static mapping (rows mapped: computed into the lines)",
    value: seconds,
    unit: "s",
    baseline: copyBase,
    pass: run.total_rows === n && run.failed_rows === 0,
    note: `${run.successful_rows.toLocaleString("en-US")} rows sent`,
  });
  ctx.report.note(`template + static mapping full sync by phase: ${phases(run)}`);
}

export async function benchSync(ctx: BenchContext): Promise<void> {
  const { args, report } = ctx;
  const n = args.rows;
  const worker = ctx.worker;
  if (!worker) throw new Error("the sync bench needs the worker");

  // Baseline: best of two copies (the second runs with the source as warm as the sync will find it).
  ctx.log("sync: COPY baseline");
  const copies = [await copyBaseline(ctx, "customers_baseline"), await copyBaseline(ctx, "customers_baseline")];
  const best = copies[0].ms <= copies[1].ms ? copies[0] : copies[1];
  const copyMs = best.ms;
  await query(ctx.destinationUrl, "DROP TABLE customers_baseline");
  const copyBase = { name: "COPY→COPY", value: copyMs / 1000, unit: "s" };

  const config = pgConfig(ctx.destinationUrl);
  /** A sync of `sql` into a new table `table` shaped like the source's. */
  const syncInto = async (table: string, sql: string) => {
    await query(ctx.destinationUrl, customerTableDdl(table));
    const discovered = await (await loadDestination("Postgresql")).discover(config);
    const catalog = { ...discovered, streams: discovered.streams.filter((s) => s.name === table) };
    return (await createSync({ workspaceId: ctx.workspaceId, sourceUrl: ctx.sourceUrl, query: sql, destination: { connectorName: "Postgresql", config, catalog } })).syncId;
  };

  // Warm-up: a worker that has been running compiled its hot code and Prisma's query compiler (a
  // WebAssembly module) long before a big sync; a fresh one does it during its first run, ~1.2 s of
  // CPU on the cores the sync and its databases share. The figures are a running worker's.
  const warmRows = Math.min(n, 50_000);
  ctx.log(`sync: warm-up sync of ${warmRows.toLocaleString("en-US")} rows into another table`);
  await runSync(ctx.workspaceId, await syncInto("customers_warmup", `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id <= ${warmRows}`));
  await query(ctx.destinationUrl, "DROP TABLE customers_warmup");

  const syncId = await syncInto("customers_copy", `SELECT ${CUSTOMER_COLUMNS} FROM customers`);

  // Memory: VmHWM reset just before the run (when the kernel allows it), VmRSS polled throughout.
  const memory = canReadMemory(worker.pid);
  const idle = memory ? memoryOf(worker.pid) : undefined;
  const hwmReset = memory && resetPeak(worker.pid);
  let peakEarly = 0;
  let peakAll = 0;
  const sample = (run: RunRow) => {
    const m = memoryOf(worker.pid);
    if (!m) return;
    peakAll = Math.max(peakAll, m.rss);
    if (run.processed_rows <= n / 10) peakEarly = Math.max(peakEarly, m.rss);
  };

  ctx.log(`sync: full sync of ${n.toLocaleString("en-US")} rows`);
  const bookkeepingBefore = await bookkeepingBytes(ctx);
  const full = await measuredRun(ctx, "full sync", () => runSync(ctx.workspaceId, syncId, { onPoll: sample }));
  const grown = await bookkeepingBytes(ctx);
  const records = grown.records - bookkeepingBefore.records;
  const states = grown.states - bookkeepingBefore.states;
  const stateIndexes = grown.stateIndexes - bookkeepingBefore.stateIndexes;
  const stateBlocks = grown.stateBlocks - bookkeepingBefore.stateBlocks;
  const bookkeeping = records + states + stateIndexes + stateBlocks;
  const after = memory ? memoryOf(worker.pid) : undefined;
  const fullPeak = after ? Math.max(peakAll, hwmReset ? after.hwm : 0) : 0;
  const [{ count: copied }] = await query<{ count: number }>(ctx.destinationUrl, "SELECT count(*)::int AS count FROM customers_copy");
  const fullS = full.duration_ms / 1000;
  report.note(
    `COPY baseline (the faster of two): CPU ${fmt(best.cpu.pipe / 1000, "s")} in the bench's pipe, ${fmt(best.cpu.source / 1000, "s")} in the source backend, ${fmt(best.cpu.destination / 1000, "s")} in the destination backend (${fmt((best.cpu.destination * 1000) / n, "µs")}/row), against ${fmt(copyMs / 1000, "s")} of wall time; ${best.faults}`,
  );
  report.add({ section: "sync", name: `COPY baseline, ${n.toLocaleString("en-US")} rows`, value: copyMs / 1000, unit: "s", note: `${fmt(n / (copyMs / 1000), "rows/s")}` });
  report.add({
    section: "sync",
    name: "full sync",
    value: fullS,
    unit: "s",
    baseline: copyBase,
    target: "≤ 3× COPY",
    pass: fullS <= 3 * copyBase.value && copied === n && full.total_rows === n,
    note: `${copied.toLocaleString("en-US")} rows in destination`,
  });
  report.add({
    section: "sync",
    name: "application database growth per synced row",
    value: bookkeeping / n,
    unit: "B",
    note: "sync_record_blocks + sync_states + sync_state_blocks with their indexes, after the full sync",
  });
  report.note(
    `application database growth per row: record blocks ${fmt(records / n, "B")}, state rows ${fmt(states / n, "B")}, their index ${fmt(stateIndexes / n, "B")}, state blocks ${fmt(stateBlocks / n, "B")}`,
  );
  report.add({ section: "sync", name: "full sync throughput", value: n / fullS, unit: "rows/s", baseline: { name: "COPY", value: n / copyBase.value, unit: "rows/s" } });
  report.note(`full sync time by phase (summed over concurrent batches): ${phases(full)}; queue pick-up ${fmt(full.queued_ms / 1000, "s")} (not counted)`);
  if (after && idle) {
    report.add({
      section: "sync",
      name: "worker peak RSS, full sync",
      value: fullPeak,
      unit: "MiB",
      baseline: { name: "idle worker", value: idle.rss, unit: "MiB" },
      target: "< 300 MiB",
      pass: fullPeak < 300,
      note: hwmReset ? "VmHWM" : "polled VmRSS",
    });
    report.add({
      section: "sync",
      name: "worker RSS, last 90% vs first 10% of rows",
      value: peakAll,
      unit: "MiB",
      baseline: { name: "first 10%", value: peakEarly, unit: "MiB" },
      target: "flat (≤ 1.1×)",
      pass: peakEarly > 0 && peakAll / peakEarly <= 1.1,
      note: "polled VmRSS",
    });
  } else report.note("worker memory: /proc is not available on this platform, RSS not measured");
  if (ctx.args.stopAfter === "full") return;

  ctx.log("sync: re-run, no change");
  const same = await measuredRun(ctx, "no-change re-run", () => runSync(ctx.workspaceId, syncId, { onPoll: sample }));
  const sameS = same.duration_ms / 1000;
  report.add({ section: "sync", name: "re-run, no change", value: sameS, unit: "s", baseline: copyBase, target: "≤ 1.5× COPY", pass: sameS <= 1.5 * copyBase.value });
  report.add({ section: "sync", name: "re-run, no change: vs full sync", value: sameS, unit: "s", baseline: { name: "full sync", value: fullS, unit: "s" } });
  report.add({
    section: "sync",
    name: "re-run, no change: rows sent",
    value: same.total_rows,
    unit: "rows",
    target: "0",
    pass: same.total_rows === 0,
  });
  report.note(`no-change re-run by phase: ${phases(same)}`);
  if (ctx.args.stopAfter === "nochange") return;

  ctx.log("sync: re-run, 1% changed");
  const changed = Math.floor(n / 100);
  await query(ctx.sourceUrl, "UPDATE customers SET email_address = 'changed-' || email_address, updated_at = updated_at + interval '1 day' WHERE id % 100 = 0");
  const delta = await measuredRun(ctx, "1%-changed re-run", () => runSync(ctx.workspaceId, syncId, { onPoll: sample }));
  const deltaS = delta.duration_ms / 1000;
  const [{ count: landed }] = await query<{ count: number }>(ctx.destinationUrl, "SELECT count(*)::int AS count FROM customers_copy WHERE email_address LIKE 'changed-%'");
  report.add({ section: "sync", name: "re-run, 1% changed", value: deltaS, unit: "s", baseline: copyBase, target: "≤ 1.5× COPY", pass: deltaS <= 1.5 * copyBase.value });
  report.add({
    section: "sync",
    name: "re-run, 1% changed: rows sent",
    value: delta.total_rows,
    unit: "rows",
    target: `exactly ${changed.toLocaleString("en-US")}`,
    pass: delta.total_rows === changed && delta.successful_rows === changed && landed === changed,
  });
  report.note(`1%-changed re-run by phase: ${phases(delta)}`);
  // The JSON path at 10M rows would add many minutes to a run whose point is memory and re-runs.
  if (n <= 1_000_000 && ctx.args.stopAfter !== "changed") await templateVariant(ctx, config, copyBase);
  if (after) {
    const end = memoryOf(worker.pid);
    if (end) {
      // The target holds for every run, not only the first: re-runs add the diff's working set.
      const peak = Math.max(peakAll, hwmReset ? end.hwm : 0);
      report.add({
        section: "sync",
        name: "worker peak RSS, all three runs",
        value: peak,
        unit: "MiB",
        baseline: { name: "idle worker", value: idle?.rss ?? 0, unit: "MiB" },
        target: "< 300 MiB",
        pass: peak < 300,
        note: hwmReset ? "VmHWM" : "polled VmRSS",
      });
      report.note(`worker RSS after the three runs: ${fmt(end.rss, "MiB")}`);
    }
  }
  ctx.report.extra.sync = { copyMs, full, same, delta, idleRss: idle?.rss, fullPeak, peakEarly, peakAll };
}
