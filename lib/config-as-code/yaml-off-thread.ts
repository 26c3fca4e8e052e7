// YAML bodies of more than a few kilobytes are read in a worker thread: the yaml package takes
// seconds for a legal 1 MB file, and on the web process's thread that would hold every other request
// for as long. A thread also gets a time and a memory limit, past which the file is refused.
import { Worker } from "node:worker_threads";
import { RateLimited } from "@/lib/errors";
import { bundledScript } from "@/lib/runtime/script-bundle";
import { ConfigSyntaxError, parseConfigYaml } from "./yaml";
import type { YamlThreadAnswer } from "./yaml-thread";

/** Up to this many characters a file is read inline: a thread costs more than the parse. */
const INLINE_CHARS = 16 * 1024;
/** Threads reading YAML at once in this process; more wait for one to end. */
const MAX_THREADS = 2;
/** Files waiting for a thread at most; more are refused (429), so waiting bodies cannot pile up. */
const MAX_WAITING = 8;
const TIME_LIMIT_MS = 20_000;
const MEMORY_LIMIT_MB = 512;

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= MAX_THREADS) {
    if (waiting.length >= MAX_WAITING) {
      throw new RateLimited("The server is already reading several large YAML files; send this one again in a few seconds, or as JSON.", {
        headers: { "Retry-After": "5" },
      });
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** parseConfigYaml, off the calling thread for anything but a small file. */
export async function parseConfigYamlOffThread(text: string, limits: { timeLimitMs?: number } = {}): Promise<unknown> {
  if (text.length <= INLINE_CHARS) return parseConfigYaml(text);
  const release = await slot();
  try {
    return await inThread(text, limits.timeLimitMs ?? TIME_LIMIT_MS);
  } finally {
    release();
  }
}

function inThread(text: string, timeLimitMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(bundledScript("lib/config-as-code/yaml-thread.ts", "yaml-thread"), {
      workerData: text,
      resourceLimits: { maxOldGenerationSizeMb: MEMORY_LIMIT_MB },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle(() => reject(new ConfigSyntaxError(`The file took longer than ${timeLimitMs / 1000} s to read; split it into smaller files or simplify it.`))),
      timeLimitMs,
    );
    worker.on("message", (answer: YamlThreadAnswer) =>
      settle(() => (answer.ok ? resolve(answer.value) : reject(answer.syntax ? new ConfigSyntaxError(answer.message) : new Error(answer.message)))),
    );
    worker.on("error", (err: Error & { code?: string }) =>
      settle(() =>
        reject(err.code === "ERR_WORKER_OUT_OF_MEMORY" ? new ConfigSyntaxError("The file needs too much memory to read; split it into smaller files or simplify it.") : err),
      ),
    );
    worker.on("exit", (code) => settle(() => reject(new Error(`The YAML reader stopped (exit code ${code}) before answering.`))));
  });
}
