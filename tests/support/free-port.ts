// A TCP port nobody listens on right now, chosen by the system (listen on port 0), for test servers
// that must be told their port up front (a child process, an embedded PostgreSQL). Never a fixed
// port: another test run on the same machine may hold any fixed one.
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";

export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The same, synchronously (for configuration files that cannot await). */
export function freePortSync(host = "127.0.0.1"): number {
  const script = `const s=require("node:net").createServer();s.listen(0,${JSON.stringify(host)},()=>{process.stdout.write(String(s.address().port));s.close()})`;
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}
