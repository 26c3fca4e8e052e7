// Child processes of the bench (the sync worker, the web server) and their memory, read from
// /proc/<pid>/status (Linux): VmRSS now, VmHWM the peak since start or since resetPeak().
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { WORKER_NODE_FLAGS, WORKER_PROCESS_ENV } from "../../scripts/worker-process-env";

export interface Child {
  process: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves when a line of output matches. */
  waitFor(pattern: RegExp, timeoutMs: number, what: string): Promise<void>;
  stop(): Promise<void>;
}

export function spawnTs(script: string, env: Record<string, string>, nodeArgs: string[] = []): Child {
  const root = process.cwd();
  // `node --import tsx` (not the tsx CLI) so the pid is the process doing the work.
  // A worker as `npm run worker` starts it (scripts/worker-process-env.ts).
  const worker = script === "scripts/worker.ts";
  const child = spawn(process.execPath, [...(worker ? WORKER_NODE_FLAGS : []), ...nodeArgs, "--import", "tsx", path.join(root, script)], {
    cwd: root,
    env: { ...process.env, ...(worker ? WORKER_PROCESS_ENV : {}), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  // BENCH_CHILD_LOG=<file>: every child's whole output also goes there (e.g. with --trace-gc).
  const log = process.env.BENCH_CHILD_LOG;
  const onData = (d: Buffer) => {
    if (log) appendFileSync(log, d);
    output = (output + d.toString()).slice(-50_000);
    for (const l of listeners) l();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  return {
    process: child,
    pid: child.pid ?? -1,
    output: () => output,
    waitFor(pattern, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) done(resolve);
          else if (child.exitCode !== null)
            done(() => reject(new Error(`${script} exited before ${what}:\n${output.slice(-3000)}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`Timed out waiting for ${what}:\n${output.slice(-3000)}`))),
          timeoutMs,
        );
        const done = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off("exit", check);
          fn();
        };
        listeners.add(check);
        child.on("exit", check);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(force);
    },
  };
}

export const canReadMemory = (pid: number): boolean => existsSync(`/proc/${pid}/status`);

/** VmRSS and VmHWM in MiB. */
export function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false when not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat; undefined when unreadable. */
export function cpuMsOf(pid: number): number | undefined {
  return usageOf(pid)?.cpuMs;
}

/** A process's CPU (ms) and minor page faults so far, from /proc/<pid>/stat; undefined when unreadable. */
export function usageOf(pid: number): Usage | undefined {
  try {
    // Fields after the command name (which may contain spaces): minflt is the 8th, utime and stime the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return { cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS, faults: Number(fields[7]) };
  } catch {
    return undefined;
  }
}

export interface Usage {
  cpuMs: number;
  /** Minor page faults: each costs ~2 to ~12 µs on the bench's virtual machine, by boot (bench/README.md (u), (v)). */
  faults: number;
}

/** USER_HZ is 100 on every Linux the bench targets. */
const CLOCK_TICKS = 100;

/**
 * CPU spent during one run by the worker and by the PostgreSQL backends serving the given databases
 * (found through pg_stat_activity every 200 ms; a backend first seen after start() counts from zero),
 * with their page faults and how many backends each database used.
 * Shows whether the worker or the database server is the bottleneck, independent of other load.
 */
export class CpuMeter {
  private readonly start = new Map<number, Usage>();
  private readonly last = new Map<number, Usage>();
  private readonly databaseOf = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  private workerStart: Usage = { cpuMs: 0, faults: 0 };
  private client: Client | undefined;

  constructor(
    private readonly adminUrl: string,
    private readonly databases: string[],
    private readonly workerPid: number,
  ) {}

  private async backends(): Promise<number[]> {
    const { rows } = await (this.client as Client).query<{ pid: number; datname: string }>(
      "SELECT pid, datname FROM pg_stat_activity WHERE datname = ANY($1::text[]) AND pid <> pg_backend_pid()",
      [this.databases],
    );
    for (const r of rows) this.databaseOf.set(r.pid, r.datname);
    return rows.map((r) => r.pid);
  }

  async begin(): Promise<void> {
    this.client = new Client({ connectionString: this.adminUrl });
    await this.client.connect();
    this.workerStart = usageOf(this.workerPid) ?? this.workerStart;
    for (const pid of await this.backends()) this.start.set(pid, usageOf(pid) ?? { cpuMs: 0, faults: 0 });
    this.timer = setInterval(() => void this.sample().catch(() => undefined), 200);
  }

  private async sample(): Promise<void> {
    for (const pid of await this.backends()) {
      const usage = usageOf(pid);
      if (usage === undefined) continue;
      if (!this.start.has(pid)) this.start.set(pid, { cpuMs: 0, faults: 0 });
      this.last.set(pid, usage);
    }
  }

  /** Milliseconds of CPU: the worker, the database backends together, and per database (with faults and backends). */
  async end(): Promise<{ worker: number; workerFaults: number; database: number; byDatabase: Map<string, number>; usageByDatabase: Map<string, DatabaseUsage> }> {
    clearInterval(this.timer);
    await this.sample().catch(() => undefined);
    await this.client?.end();
    let database = 0;
    const byDatabase = new Map<string, number>();
    const usageByDatabase = new Map<string, DatabaseUsage>();
    for (const [pid, usage] of this.last) {
      const start = this.start.get(pid) ?? { cpuMs: 0, faults: 0 };
      const spent = Math.max(0, usage.cpuMs - start.cpuMs);
      database += spent;
      const name = this.databaseOf.get(pid) ?? "?";
      byDatabase.set(name, (byDatabase.get(name) ?? 0) + spent);
      const sum = usageByDatabase.get(name) ?? { cpuMs: 0, faults: 0, backends: 0 };
      const busy = spent > 0 || usage.faults > start.faults;
      usageByDatabase.set(name, { cpuMs: sum.cpuMs + spent, faults: sum.faults + Math.max(0, usage.faults - start.faults), backends: sum.backends + (busy ? 1 : 0) });
    }
    const worker = usageOf(this.workerPid) ?? this.workerStart;
    return { worker: worker.cpuMs - this.workerStart.cpuMs, workerFaults: worker.faults - this.workerStart.faults, database, byDatabase, usageByDatabase };
  }
}

/** One database's backends over a run: their CPU, their page faults, how many did any work. */
export interface DatabaseUsage extends Usage {
  backends: number;
}

/** Local TCP ports of a process's sockets (Linux: its fds' socket inodes looked up in /proc/net/tcp*). */
export function tcpPortsOf(pid: number): number[] {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const link = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return "";
        }
      })();
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]);
    }
    const ports: number[] = [];
    for (const table of ["tcp", "tcp6"]) {
      const lines = existsSync(`/proc/${pid}/net/${table}`)
        ? readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)
        : [];
      for (const line of lines) {
        const f = line.trim().split(/\s+/);
        if (f.length > 9 && inodes.has(f[9])) ports.push(parseInt(f[1].split(":")[1], 16));
      }
    }
    return ports;
  } catch {
    return [];
  }
}
