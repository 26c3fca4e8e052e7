// A second product server beside the main test server, for specs that need other settings (sign-up on,
// no TRUST_PROXY). It runs the same e2e-server script on a port the system picks; without
// TEST_DATABASE_URL it starts its own embedded PostgreSQL (in dataDir, on another such port), so it
// never meets the main server's files or port, nor those of another test run on this machine.
import { spawn } from "node:child_process";
import { freePort } from "../../tests/support/free-port";

export interface SecondServer {
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The port of its embedded PostgreSQL (used only without TEST_DATABASE_URL). */
  embeddedPgPort: number;
  stop(): void;
}

export interface SecondServerOptions {
  /** Settings on top of the inherited environment (PORT, HOST, RUN_WORKER=0 and the data dir are set here). */
  env: Record<string, string>;
  dataDir: string;
  /** How long to wait for /api/health, in seconds. */
  waitSeconds: number;
}

export async function startSecondServer(options: SecondServerOptions): Promise<SecondServer> {
  // A port is free when chosen but could be taken before the server binds it: then the child exits,
  // and another pair of ports is tried.
  for (let attempt = 1; ; attempt++) {
    const started = await startOn(await freePort(), await freePort(), options);
    if (started !== "exited") return started;
    if (attempt === 3) throw new Error("the second server exited before it was up, three times");
  }
}

async function startOn(port: number, embeddedPgPort: number, { env, dataDir, waitSeconds }: SecondServerOptions): Promise<SecondServer | "exited"> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn("npx", ["tsx", "--tsconfig", "tsconfig.node.json", "scripts/e2e-server.ts"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      RUN_WORKER: "0",
      ...env,
      E2E_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(embeddedPgPort),
    },
    stdio: "ignore",
    // Its own process group, so stop() ends tsx and the server it starts together.
    detached: true,
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  const stop = () => {
    if (child.pid && !exited) process.kill(-child.pid, "SIGTERM");
  };
  for (let i = 0; i < waitSeconds && !exited; i++) {
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { port, base, embeddedPgPort, stop };
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (exited) return "exited";
  stop();
  throw new Error(`the second server on ${port} did not come up`);
}
