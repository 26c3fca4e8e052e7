// The DuckDB source as the server runs it: every operation in a child process of its own
// (child-main.ts) under an address-space limit (`prlimit --as`). Some DuckDB functions allocate
// outside its memory_limit (`SELECT len(range(0, 100000000))` reached ~9.5 GB with a 64 MB limit);
// in the child such an allocation fails as DuckDB's "Out of Memory Error" and the server's memory is
// untouched. Measured: Node with DuckDB starts under a 2 GiB limit (not under 1 GiB: V8 reserves
// address space), so the limit is the configured memory_limit plus HEADROOM_MB.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type {
  Catalog,
  CheckResult,
  FingerprintedBatch,
  FingerprintOptions,
  QueryResult,
  ReadOptions,
  Row,
  SourceConnector,
} from "../types";
import { ConnectorError, safeCheck } from "../shared/errors";
import { modelSelect } from "../shared/sql";
import { childScript } from "./child-bundle";
import type { ChildReply, ChildRequest } from "./child-protocol";
import { duckdbSourceDefinition } from "./definition";
import { describeDuckError } from "./session";

/** Address space for Node and DuckDB's own structures, on top of the query's memory_limit. */
const HEADROOM_MB = 1792;
const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => existsSync(p));
/** Longest the parent waits for one answer beyond the query timeout (start-up, a chunk's conversion). */
const GRACE_MS = 30_000;

function childCommand(config: Row): { command: string; args: string[] } {
  const node = [process.execPath, childScript()];
  const memory = typeof config.memory_limit_mb === "number" ? config.memory_limit_mb : 256;
  if (!PRLIMIT)
    throw new ConnectorError(
      "The DuckDB source needs prlimit (util-linux) on the server to bound its memory; its operator installs it.",
    );
  return { command: PRLIMIT, args: [`--as=${(memory + HEADROOM_MB) * 1024 * 1024}`, "--", ...node] };
}

/** The child's environment: what it needs, none of the server's secrets. */
function childEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "LANG", "TZ", "NODE_ENV", "DUCKDB_DATA_DIR"];
  const env: Record<string, string> = {};
  for (const k of keep) {
    const value = process.env[k];
    if (value !== undefined) env[k] = value;
  }
  return env;
}

/** One child answering one request: its replies in order, then the end of the process. */
class Child {
  private readonly replies: ChildReply[] = [];
  private waiting: ((reply: ChildReply) => void) | undefined;
  private readonly proc: ChildProcess;
  private exited: ChildReply | undefined;

  constructor(config: Row, request: ChildRequest, signal?: AbortSignal) {
    const { command, args } = childCommand(config);
    this.proc = spawn(command, args, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: childEnv() as NodeJS.ProcessEnv,
    });
    let stderr = "";
    this.proc.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    this.proc.on("message", (reply: ChildReply) => this.push(reply));
    // "close", not "exit": it comes after the last IPC message and the whole of stderr (which the
    // out-of-memory sentence is read from); "exit" may come before either.
    this.proc.on("close", (code, sig) => {
      // A clean exit after its answer adds nothing; otherwise whatever is still awaited fails.
      const lastLine = stderr.trim().split("\n").pop() ?? "";
      this.exited = {
        type: "error",
        connector: true,
        message:
          /out of memory|bad_alloc|ENOMEM/i.test(stderr) || sig === "SIGKILL"
            ? "The DuckDB query used more memory than its limit allows and was stopped: narrow it, or raise memory_limit_mb."
            : `The DuckDB process stopped (${sig ?? `exit code ${code}`})${lastLine ? `: ${describeDuckError(lastLine)}` : "."}`,
      };
      this.push(this.exited);
    });
    this.proc.on("error", (err) => this.push({ type: "error", connector: false, message: err.message }));
    signal?.addEventListener("abort", () => this.kill(), { once: true });
    this.proc.send(request);
  }

  private push(reply: ChildReply): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w(reply);
    } else this.replies.push(reply);
  }

  /** The next reply, or an error reply when none comes within `timeoutMs`. */
  next(timeoutMs: number): Promise<ChildReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.exited) return Promise.resolve(this.exited);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        this.kill();
        resolve({
          type: "error",
          connector: true,
          message: `The DuckDB query gave no answer within ${Math.round(timeoutMs / 1000)} s and was stopped.`,
        });
      }, timeoutMs);
      this.waiting = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
    });
  }

  more(): void {
    if (this.proc.connected) this.proc.send({ op: "next" });
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
  }
}

function waitMs(config: Row): number {
  return (typeof config.query_timeout === "number" ? config.query_timeout : 60) * 1000 + GRACE_MS;
}

function failure(reply: ChildReply): Error {
  if (reply.type !== "error") return new Error(`The DuckDB process answered ${reply.type} out of turn.`);
  return reply.connector ? new ConnectorError(reply.message) : new Error(reply.message);
}

async function once<T>(config: Row, request: ChildRequest): Promise<T> {
  const child = new Child(config, request);
  try {
    const reply = await child.next(waitMs(config));
    if (reply.type !== "result") throw failure(reply);
    return reply.value as T;
  } finally {
    child.kill();
  }
}

async function* batches(
  config: Row,
  request: ChildRequest,
  signal?: AbortSignal,
): AsyncGenerator<ChildReply> {
  const child = new Child(config, request, signal);
  try {
    for (;;) {
      const reply = await child.next(waitMs(config));
      if (reply.type === "end") return;
      if (reply.type === "error")
        throw signal?.aborted ? new ConnectorError("The read was stopped.") : failure(reply);
      yield reply;
      child.more();
    }
  } finally {
    child.kill();
  }
}

const withoutSignal = ({ signal: _signal, ...rest }: ReadOptions) => rest;

/** The DuckDB operations, each in its own child; `dir` (server-chosen) replaces the workspace's directory. */
export interface IsolatedDuck {
  check(config: Row): Promise<CheckResult>;
  discover(config: Row): Promise<Catalog>;
  query(config: Row, sql: string, limit: number): Promise<QueryResult>;
  read(config: Row, options: ReadOptions): AsyncGenerator<Row[]>;
  readFingerprinted(
    config: Row,
    options: ReadOptions & { fingerprint: FingerprintOptions },
  ): AsyncGenerator<FingerprintedBatch>;
}

export function isolatedDuck(dir?: string): IsolatedDuck {
  return {
    check: (config) => once<CheckResult>(config, { op: "check", config, dir }),
    discover: (config) => once<Catalog>(config, { op: "discover", config, dir }),
    query: (config, sql, limit) => once<QueryResult>(config, { op: "query", config, sql, limit, dir }),
    async *read(config, options) {
      const request: ChildRequest = { op: "read", config, options: withoutSignal(options), dir };
      for await (const reply of batches(config, request, options.signal)) {
        if (reply.type === "rows") yield reply.rows;
      }
    },
    async *readFingerprinted(config, options) {
      const request: ChildRequest = {
        op: "readFingerprinted",
        config,
        options: { ...withoutSignal(options), fingerprint: options.fingerprint },
        dir,
      };
      for await (const reply of batches(config, request, options.signal)) {
        if (reply.type !== "fingerprinted") continue;
        const batch: FingerprintedBatch = {
          length: reply.rows.length,
          keyValues: reply.keyValues,
          fingerprints: reply.fingerprints,
          row: (i) => ({ ...reply.rows[i] }),
        };
        yield batch;
      }
    },
  };
}

const workspaceDuck = isolatedDuck();

export const duckdbSource: SourceConnector = {
  definition: duckdbSourceDefinition,
  check: (config) => safeCheck(duckdbSourceDefinition, config, () => workspaceDuck.check(config)),
  discover: (config) => workspaceDuck.discover(config),
  query: (config, sql, limit) => workspaceDuck.query(config, sql, limit),
  checkQuery: (sql) => void modelSelect(sql, "postgresql"),
  read: (config, options) => workspaceDuck.read(config, options),
  readFingerprinted: (config, options) => workspaceDuck.readFingerprinted(config, options),
};
