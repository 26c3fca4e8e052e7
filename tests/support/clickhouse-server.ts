// A private ClickHouse server for tests: Debian's clickhouse-server (18.16 here) in a temporary
// directory, listening on 127.0.0.1 only, on free HTTP and TCP ports, with a config and users file
// written here (a user with a password, a read-only user). Stopped by killing its process group, so
// nothing is left running. As root, it runs as the `clickhouse` system user when there is one (the
// package creates it), owning only its temporary directory.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

export interface ClickhouseServer {
  /** http://127.0.0.1:<http port> */
  url: string;
  httpPort: number;
  /** The native protocol's port (clickhouse-client). */
  tcpPort: number;
  /** The server's process (its CPU can be read from /proc). */
  pid?: number;
  username: string;
  password: string;
  /** A user whose profile is readonly=1 (same password). */
  readonlyUser: string;
  /** Runs a statement as the admin user and returns the response body (throws on an HTTP error). */
  exec(sql: string, body?: string | Buffer): Promise<string>;
  stop(): Promise<void>;
}

const BINARY_CANDIDATES = [process.env.CLICKHOUSE_SERVER_BIN, "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server", "/usr/bin/clickhouse"];

export function clickhouseBinary(): string | undefined {
  return BINARY_CANDIDATES.find((p): p is string => !!p && existsSync(p));
}

/** uid/gid of the `clickhouse` system user when we are root, so the server does not run as root. */
function serverIdentity(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync("id", [flag, "clickhouse"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    const uid = id("-u");
    const gid = id("-g");
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function configXml(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${xml(dir)}/data/</path>
  <tmp_path>${xml(dir)}/tmp/</tmp_path>
  <user_files_path>${xml(dir)}/user_files/</user_files_path>
  <format_schema_path>${xml(dir)}/format_schemas/</format_schema_path>
  <users_config>${xml(dir)}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>5368709</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
</yandex>
`;
}

function usersXml(password: string): string {
  const user = (profile: string) =>
    `<password>${xml(password)}</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>${profile}</profile><quota>default</quota>`;
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage></default>
    <readonly><readonly>1</readonly></readonly>
  </profiles>
  <users>
    <default>${user("default")}</default>
    <reader>${user("readonly")}</reader>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

async function waitForPing(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`clickhouse-server exited with ${child.exitCode}: ${output().slice(-2000)}`);
    try {
      const res = await fetch(`${url}/ping`);
      if (res.ok && (await res.text()).startsWith("Ok")) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`clickhouse-server did not answer /ping within ${timeoutMs / 1000} s: ${output().slice(-2000)}`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Starts a server; the caller must stop() it (afterAll / global teardown). */
export async function startClickhouse(options: { password?: string } = {}): Promise<ClickhouseServer> {
  const binary = clickhouseBinary();
  if (!binary) throw new Error("clickhouse-server is not installed (apt-get install clickhouse-server); .ci/run installs it.");
  const password = options.password ?? "ch-test-password";
  const dir = await mkdtemp(path.join(tmpdir(), "ds-clickhouse-"));
  for (const sub of ["data", "tmp", "user_files", "format_schemas"]) await mkdir(path.join(dir, sub));
  const httpPort = await freePort();
  const tcpPort = await freePort();
  const configPath = path.join(dir, "config.xml");
  await writeFile(configPath, configXml(dir, httpPort, tcpPort));
  await writeFile(path.join(dir, "users.xml"), usersXml(password));
  const identity = serverIdentity();
  if (identity) {
    for (const p of [dir, ...["data", "tmp", "user_files", "format_schemas", "config.xml", "users.xml"].map((s) => path.join(dir, s))]) {
      await chown(p, identity.uid, identity.gid);
    }
  }
  let output = "";
  // detached: a process group of its own, killed whole by stop().
  const child = spawn(binary, [`--config-file=${configPath}`], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(identity ?? {}),
  });
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `http://127.0.0.1:${httpPort}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A test process that dies without its afterAll leaves no server behind.
  const onExit = () => killGroup(child, "SIGKILL");
  process.once("exit", onExit);
  void exited.then(() => process.removeListener("exit", onExit));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    await waitForPing(url, child, () => output, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const auth = `Basic ${Buffer.from(`default:${password}`).toString("base64")}`;
  const exec = async (sql: string, body?: string | Buffer) => {
    const target = body === undefined ? url : `${url}/?query=${encodeURIComponent(sql)}`;
    const res = await fetch(target, { method: "POST", headers: { authorization: auth }, body: body === undefined ? sql : new Uint8Array(Buffer.from(body)) });
    const text = await res.text();
    if (!res.ok) throw new Error(`ClickHouse answered ${res.status}: ${text.slice(0, 500)}`);
    return text;
  };
  return { url, httpPort, tcpPort, pid: child.pid, username: "default", password, readonlyUser: "reader", exec, stop };
}
