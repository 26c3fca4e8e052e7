// Child processes of the bench (the sync worker, the web server) and their memory, read from
// /proc/<pid>/status (Linux): VmRSS now, VmHWM the peak since start or since resetPeak().
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

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
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", path.join(root, script)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
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
          else if (child.exitCode !== null) done(() => reject(new Error(`${script} exited before ${what}:\n${output.slice(-3000)}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`Timed out waiting for ${what}:\n${output.slice(-3000)}`))), timeoutMs);
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
