// 5. Scale-out: 1, 2 and 3 worker processes (scripts/worker.ts, WORKER_CONCURRENCY 2 each) on one
// application database; each round triggers N syncs of R rows (PostgreSQL → PostgreSQL, over six
// workspaces, queued workspace by workspace) at once and measures runs per minute, then checks with
// SQL that every sync ran exactly once, every record exists once, the destination holds every row and
// no workspace ran more than its share (WORKSPACE_MAX_ACTIVE_RUNS) at once. A last round SIGKILLs one
// of three workers a third of the way in: its runs must be finished by the others, nothing lost or
// recorded twice. A round of one-row syncs separates the application database's CPU per run from its
// CPU per row. The bench process plays the web process: it triggers through the engine's trigger,
// the function POST /api/v1/schedule_syncs calls.
import os from "node:os";
import { loadDestination } from "@/lib/connectors/registry";
import { pgConfig } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { customerTableDdl, fillCustomers, query } from "./lib/pg";
import { CpuMeter, cpuMsOf, spawnTs, tcpPortsOf, type Child } from "./lib/process";
import { fmt } from "./lib/report";
import { checkRound, halfTimeShares, type RoundOutcome } from "./lib/scale-checks";
import { createRoundSyncs, SCALE_SOURCE, triggerAll } from "./lib/scale-fixtures";
import { createWorkspace } from "./lib/app";

const WORKSPACES = 6;
/** Runs of one workspace at once across all workers; 1 so that six workspaces can fill six slots. */
const SHARE = 1;
const CONCURRENCY = 2;

interface Round {
  label: string;
  workers: number;
  syncs: number;
  rows: number;
  /** SIGKILL one worker once this fraction of the runs has ended. */
  killAt?: number;
}

interface Measured {
  round: Round;
  /** 1-minute load average at the round's start and end: the machine is shared. */
  load: [number, number];
  outcome: RoundOutcome;
  cpu: { workers: number; app: number; source: number; destination: number };
  /** Most backends seen on the application database during the round (the bench's own included). */
  connections: number;
  /** Runs the killed worker held (their run lock) when it died, and how many of them were claimed again. */
  killed?: { runs: number[]; claimedAgain: number };
}

/** 'SYNC', the namespace of a general run's advisory lock (lib/engine/locks.ts runLockKey). */
const SYNC_LOCK_NAMESPACE = 0x53594e43;

/** The round's runs whose lock a process holds: its connections found by their client ports. */
async function runsHeldBy(ctx: BenchContext, pid: number, runIds: number[]): Promise<number[]> {
  const ports = tcpPortsOf(pid);
  if (ports.length === 0) return [];
  const rows = await query<{ id: number }>(
    ctx.appUrl,
    `SELECT r.id FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid JOIN sync_runs r ON r.sync_id = l.objid::text::int
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objsubid = 2
        AND a.client_port = ANY($2::int[]) AND a.datname = current_database() AND r.id = ANY($3::int[])`,
    [SYNC_LOCK_NAMESPACE, ports, runIds],
  );
  return rows.map((r) => r.id);
}

class Workers {
  readonly live: Child[] = [];
  constructor(private readonly ctx: BenchContext) {}

  /** Starts workers (side by side) until `n` run. */
  async growTo(n: number): Promise<void> {
    const env = {
      DATABASE_URL: this.ctx.appUrl,
      WORKER_CONCURRENCY: String(CONCURRENCY),
      WORKSPACE_MAX_ACTIVE_RUNS: String(SHARE),
      LOG_LEVEL: "info",
    };
    const started = Array.from({ length: Math.max(0, n - this.live.length) }, () =>
      spawnTs("scripts/worker.ts", env),
    );
    this.live.push(...started);
    await Promise.all(started.map((child) => child.waitFor(/worker started/, 120_000, "a worker to start")));
  }

  cpu(): number {
    return this.live.reduce((sum, w) => sum + (cpuMsOf(w.pid) ?? 0), 0);
  }

  /** Kills the first worker with SIGKILL: no shutdown, its runs keep their status and lose their locks. */
  kill(): { cpuMs: number } {
    const victim = this.live.shift() as Child;
    const cpuMs = cpuMsOf(victim.pid) ?? 0;
    victim.process.kill("SIGKILL");
    return { cpuMs };
  }

  output(): string {
    return this.live.map((w) => w.output()).join("\n");
  }

  async stop(): Promise<void> {
    await Promise.all(this.live.splice(0).map((w) => w.stop()));
  }
}

async function runRound(
  ctx: BenchContext,
  workers: Workers,
  workspaces: number[],
  round: Round,
  n: number,
): Promise<Measured> {
  const table = `scale_r${n}`;
  await query(ctx.destinationUrl, customerTableDdl(table));
  const config = pgConfig(ctx.destinationUrl);
  const discovered = await (await loadDestination("Postgresql")).discover(config);
  const catalog = { ...discovered, streams: discovered.streams.filter((s) => s.name === table) };
  const syncs = await createRoundSyncs({
    ...ctx,
    label: `r${n}`,
    workspaces,
    syncs: round.syncs,
    rows: round.rows,
    table,
    catalog,
  });
  await workers.growTo(round.workers);
  const app = new URL(ctx.appUrl).pathname.slice(1);
  const names = [ctx.appUrl, ctx.sourceUrl, ctx.destinationUrl].map((u) => new URL(u).pathname.slice(1));
  const loadAtStart = os.loadavg()[0];
  const meter = new CpuMeter(ctx.server.adminUrl, names, process.pid);
  await meter.begin();
  const workerCpuStart = workers.cpu();
  let killedCpu = 0;
  ctx.log(
    `scale: ${round.label}: ${round.syncs} syncs × ${round.rows.toLocaleString("en-US")} rows, ${round.workers} worker(s)`,
  );
  const runIds = await triggerAll(syncs);
  let connections = 0;
  let killed = false;
  let victimRuns: number[] = [];
  const deadline = Date.now() + 60 * 60_000;
  for (;;) {
    const [{ ended, backends }] = await query<{ ended: number; backends: number }>(
      ctx.appUrl,
      `SELECT (SELECT count(*)::int FROM sync_runs WHERE id = ANY($1::int[]) AND status IN ('success', 'failed', 'canceled')) AS ended,
              (SELECT count(*)::int FROM pg_stat_activity WHERE datname = $2) AS backends`,
      [runIds, app],
    );
    connections = Math.max(connections, backends);
    // The kill waits for a moment when the victim holds a run, so the round tests a run cut short.
    const held =
      round.killAt !== undefined && !killed && ended >= runIds.length * round.killAt
        ? await runsHeldBy(ctx, workers.live[0].pid, runIds)
        : [];
    if (held.length > 0) {
      killed = true;
      victimRuns = held;
      const { cpuMs } = workers.kill();
      killedCpu = cpuMs;
      ctx.log(
        `scale: ${round.label}: SIGKILL one worker at ${ended} of ${runIds.length} runs ended, holding runs ${held.join(", ")}`,
      );
    }
    if (ended === runIds.length) break;
    if (Date.now() > deadline)
      throw new Error(`scale: ${round.label}: ${runIds.length - ended} runs did not end within an hour`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const cpu = await meter.end();
  // The victim's CPU up to its death counts; it is no longer among the live workers.
  const workerCpu = workers.cpu() + killedCpu - workerCpuStart;
  const outcome = await checkRound({
    ...ctx,
    table,
    syncIds: syncs.map((s) => s.syncId),
    runIds,
    rows: round.rows,
    excluded: victimRuns,
  });
  const [{ again }] = await query<{ again: number }>(
    ctx.appUrl,
    "SELECT count(*)::int AS again FROM sync_runs WHERE id = ANY($1::int[]) AND attempts > 1",
    [victimRuns],
  );
  const byName = (i: number) => cpu.byDatabase.get(names[i]) ?? 0;
  return {
    round,
    load: [loadAtStart, os.loadavg()[0]],
    outcome,
    cpu: { workers: workerCpu, app: byName(0), source: byName(1), destination: byName(2) },
    connections,
    killed: round.killAt === undefined ? undefined : { runs: victimRuns, claimedAgain: again },
  };
}

/** Whether the round's checks all hold; the failures as words. */
function verdict(m: Measured): string[] {
  const { outcome: o, round } = m;
  const total = round.syncs * round.rows;
  const bad: string[] = [];
  if (o.syncsNotOnce > 0) bad.push(`${o.syncsNotOnce} syncs without exactly one run`);
  if (o.runsNotComplete > 0) bad.push(`${o.runsNotComplete} runs not ended success with every row`);
  if (o.records !== total) bad.push(`${o.records} records for ${total} rows`);
  if (o.distinctRecords !== o.records) bad.push(`${o.records - o.distinctRecords} records duplicated`);
  if (o.states !== total) bad.push(`${o.states} sync states for ${total} rows`);
  if (o.destinationRows !== total) bad.push(`${o.destinationRows} destination rows for ${total}`);
  return bad;
}

function report(ctx: BenchContext, all: Measured[], perWorkspace: Map<number, number>): void {
  const { report } = ctx;
  const rpm = (m: Measured) => m.round.syncs / (m.outcome.spanMs / 60_000);
  const single = all.find((m) => m.round.workers === 1 && m.round.killAt === undefined && m.round.rows > 1);
  for (const m of all) {
    const { round, outcome: o } = m;
    const bad = verdict(m);
    const shares = halfTimeShares(o.finishes, perWorkspace);
    const lowest = Math.min(...shares.values());
    const label = round.label;
    report.add({
      section: "scale",
      name: `${label}: runs per minute`,
      value: rpm(m),
      unit: "runs/min",
      baseline:
        single && single !== m && round.rows === single.round.rows
          ? { name: "1 worker", value: rpm(single), unit: "runs/min" }
          : undefined,
      note: `${fmt((round.syncs * round.rows) / (o.spanMs / 1000), "rows/s")}, ${fmt(o.spanMs / 1000, "s")} from first trigger to last end`,
    });
    report.add({
      section: "scale",
      name: `${label}: each sync once, each record once, every row in the destination`,
      value: bad.length,
      unit: "problems",
      target: "0",
      pass: bad.length === 0,
      note: bad.length
        ? bad.join("; ")
        : `${o.records.toLocaleString("en-US")} records, ${o.reclaimed} runs claimed again after a stop`,
    });
    report.add({
      section: "scale",
      name: `${label}: most runs of one workspace at once`,
      value: o.maxPerWorkspace,
      unit: "runs",
      target: `≤ ${SHARE} (the share)`,
      pass: o.maxPerWorkspace <= SHARE,
      note: m.killed
        ? "the killed worker's runs left out: their span includes the time before the reaper handed them on"
        : undefined,
    });
    if (m.killed) {
      report.add({
        section: "scale",
        name: `${label}: runs the killed worker held, claimed again and finished by the others`,
        value: m.killed.claimedAgain,
        unit: "runs",
        target: `all of them (${m.killed.runs.length}), at least 1`,
        pass: m.killed.runs.length > 0 && m.killed.claimedAgain === m.killed.runs.length && bad.length === 0,
        note: `runs ${m.killed.runs.join(", ")}`,
      });
    }
    // Fewer runs per workspace (the smoke size) make the half-time count a coin toss.
    if (Math.min(...perWorkspace.values()) >= 10)
      report.add({
        section: "scale",
        name: `${label}: least workspace progress at half time`,
        value: lowest,
        unit: "× fair",
        target: "≥ 0.5× (FIFO: 0)",
        pass: lowest >= 0.5,
        note: `each workspace's ended runs when half had ended, over half its runs; first start per workspace ${[...o.firstStart.values()].map((t) => fmt(t / 1000, "s")).join(", ")}`,
      });
    report.note(
      `scale ${label}: CPU ${fmt(m.cpu.workers / 1000, "s")} in the workers, ${fmt(m.cpu.app / 1000, "s")} in application database backends, ${fmt(m.cpu.source / 1000, "s")} source, ${fmt(m.cpu.destination / 1000, "s")} destination, over ${fmt(o.spanMs / 1000, "s")} on ${os.cpus().length} cores; ${o.jobs} queue jobs for ${round.syncs} runs; up to ${m.connections} connections on the application database; 1-minute load ${m.load[0].toFixed(1)} → ${m.load[1].toFixed(1)}`,
    );
  }
  costModel(ctx, all);
}

/** Application database CPU per run (the one-row round) and per row (a full round less its runs' share). */
function costModel(ctx: BenchContext, all: Measured[]): void {
  const tiny = all.find((m) => m.round.rows === 1);
  const full = all.filter((m) => m.round.rows > 1 && m.round.killAt === undefined).at(-1);
  if (!tiny || !full) return;
  const perRunMs = tiny.cpu.app / tiny.round.syncs;
  const perRowUs =
    ((full.cpu.app - perRunMs * full.round.syncs) * 1000) / (full.round.syncs * full.round.rows);
  const workerPerRowUs =
    ((full.cpu.workers - (tiny.cpu.workers / tiny.round.syncs) * full.round.syncs) * 1000) /
    (full.round.syncs * full.round.rows);
  ctx.report.add({
    section: "scale",
    name: "application database CPU per run (one-row syncs)",
    value: perRunMs,
    unit: "ms",
    note: `${tiny.round.syncs} runs`,
  });
  ctx.report.add({
    section: "scale",
    name: "application database CPU per synced row (less the runs' share)",
    value: perRowUs,
    unit: "µs",
    note: `${full.round.label}`,
  });
  ctx.report.add({
    section: "scale",
    name: "worker CPU per synced row (less the runs' share)",
    value: workerPerRowUs,
    unit: "µs",
  });
  ctx.report.extra.scaleModel = { perRunMs, perRowUs, workerPerRowUs };
}

export async function benchScale(ctx: BenchContext): Promise<void> {
  const { args } = ctx;
  const syncs = args.scaleSyncs ?? (args.smoke ? 12 : 300);
  const rows = args.scaleRows ?? (args.smoke ? 200 : 10_000);
  // Smoke (CI): one round of two workers, ~30 s on an idle machine, mostly the workers' start.
  const rounds: Round[] = args.smoke
    ? [{ label: "2 workers", workers: 2, syncs, rows }]
    : [
        ...[1, 2, 3].map((w) => ({ label: `${w} worker${w > 1 ? "s" : ""}`, workers: w, syncs, rows })),
        { label: "3 workers, one-row syncs", workers: 3, syncs, rows: 1 },
        { label: "3 workers, one killed", workers: 3, syncs, rows, killAt: 1 / 3 },
      ];
  ctx.log(`scale: source of ${(syncs * rows).toLocaleString("en-US")} rows`);
  await fillCustomers(ctx.sourceUrl, SCALE_SOURCE, syncs * rows);
  const workspaces: number[] = [];
  for (let i = 1; i <= WORKSPACES; i++) workspaces.push(await createWorkspace(`Scale ${i}`));
  const perWorkspace = new Map(
    workspaces.map((ws, w) => [
      ws,
      Array.from({ length: syncs }, (_, i) => i).filter((i) => i % WORKSPACES === w).length,
    ]),
  );
  const workers = new Workers(ctx);
  const all: Measured[] = [];
  try {
    for (const [i, round] of rounds.entries())
      all.push(await runRound(ctx, workers, workspaces, round, i + 1));
  } catch (err) {
    console.error(`worker output (tail):\n${workers.output().slice(-3000)}`);
    throw err;
  } finally {
    await workers.stop();
    report(ctx, all, perWorkspace);
  }
  ctx.report.note(
    `scale: ${os.cpus().length} cores shared by the workers, PostgreSQL and the bench: more workers add slots, not CPU, so the rounds measure correctness and the cost of coordination, not speed-up`,
  );
}
