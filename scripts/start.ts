// npm start: ONE command for the whole product. Opens the database (embedded PostgreSQL unless
// DATABASE_URL is set), migrates, seeds, builds the console when sources changed, then serves the
// console and the API on PORT with the scheduler and a worker in the same process.
// `npm run dev` does the same with Next's dev server (no build).
import { existsSync, readdirSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import next from "next";
import { assertMailSettings } from "../lib/settings/console-url";
import { assertValidEnv, env } from "../lib/settings/env";
import { outboundAllowPrivate } from "../lib/settings/outbound";
import { assertProductionSecrets } from "../lib/settings/secrets";
import { surviveDatabaseOutages } from "../lib/db/health";
import { prepareDatabase } from "../lib/db/runtime";
import { closeDatabase } from "../lib/db/client";
import { limitBody } from "../lib/http/body-limit";
import { sanitizeForwarded, trustProxy } from "../lib/http/forwarded";
import { coalesceHeaderFlush } from "../lib/http/header-flush";
import { stampPeer } from "../lib/http/peer";
import { seed } from "../lib/db/seed";
import { logger } from "../lib/logger";
import { stopEngine } from "../lib/engine";
import { startDatasyncEngine } from "../lib/services/run-events";
import { firstAdminBanner } from "./admin/box";
import { buildConsole } from "./console-build";

const dev = process.argv.includes("--dev");
const SOURCE_DIRS = ["app", "components", "lib", "public"];
const SOURCE_FILES = ["next.config.ts", "package.json", "tailwind.config.ts", "postcss.config.mjs", "tsconfig.json"];

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) {
    if (entry === "generated" || entry.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

/** Builds the console when there is no build yet or a source is newer than the last one. */
async function buildIfNeeded(): Promise<void> {
  const buildId = path.join(env.NEXT_DIST_DIR, "BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const changed = Math.max(...[...SOURCE_DIRS, ...SOURCE_FILES].map(newestMtime));
  if (built && built >= changed) return;
  logger.info("building the console (first start or sources changed)…");
  await buildConsole();
}

async function main() {
  // Before anything reads it: a malformed variable stops the start here, with its name and form.
  assertValidEnv();
  const { PORT: port, HOST: hostname } = env;
  surviveDatabaseOutages(logger);
  // Next, running in this process, reads this from the environment only.
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  assertProductionSecrets();
  assertMailSettings();
  const db = await prepareDatabase((line) => logger.debug({ postgres: line.trim() }, "embedded postgres"), {
    ownSignals: true,
  });
  logger.info({ embedded: Boolean(db.embedded), dataDir: db.embedded?.dataDir }, "database ready");

  const seeded = await seed();
  if (env.DEMO) {
    // The demo's connectors read and write a database beside the app's: lib/settings/outbound.ts
    // allows just that host unless the operator chose.
    if (env.OUTBOUND_ALLOW_PRIVATE === undefined) {
      logger.info(`DEMO=1: connectors may reach ${outboundAllowPrivate()} (OUTBOUND_ALLOW_PRIVATE)`);
    }
    const { seedDemo } = await import("../lib/db/seed-demo");
    await seedDemo({ log: (line) => logger.info(line) });
  }

  if (!dev) await buildIfNeeded();
  const app = next({ dev, hostname: "localhost", port, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();
  const trusted = trustProxy();
  const server = http.createServer((incoming, res) => {
    // What routes may believe: forwarded claims only behind a trusted proxy (else X-Forwarded-For
    // is the peer), and the real socket peer in a header only this process can stamp.
    sanitizeForwarded(incoming.headers, incoming.socket.remoteAddress, trusted);
    stampPeer(incoming.headers, incoming.socket.remoteAddress);
    coalesceHeaderFlush(res);
    // The body limit of every route (next-auth's included), before Next reads a byte of it.
    void limitBody(incoming, res).then((req) => req && handle(req, res));
  });
  // Idle keep-alive connections stay open longer than a proxy's or a client's idle timeout (often
  // 60 s): with Node's 5 s, a client reusing a connection the server is closing gets ECONNRESET
  // (seen by the API tests' shared request context, and as 502s behind load balancers).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(port, hostname, resolve));
  // The engine with its run event subscribers (alerts, webhooks, sequences) and the alert queue's work.
  await startDatasyncEngine({ worker: env.RUN_WORKER, scheduler: true });
  logger.info(`Datasync is up on http://localhost:${port} (console and API; /api/health)`);
  // Last, after the build's output, so a first start ends with how to sign in.
  if (seeded.createdAdmin) console.log(firstAdminBanner(seeded.createdAdmin, port));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    setTimeout(() => process.exit(1), 60_000).unref();
    server.close();
    await stopEngine({ closeDatabase: true }).catch((err) => logger.error({ err }, "engine stop failed"));
    await app.close?.().catch(() => undefined);
    await closeDatabase();
    await db.stop().catch(() => undefined);
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(signal));
}

main().catch((err) => {
  logger.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
