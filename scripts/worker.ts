// npm run worker: a sync worker on its own (plus the scheduler, which only acts in the one process
// holding its lock; WORKER_SCHEDULER=0 turns it off). Opens the database (DATABASE_URL, else the
// embedded one) and migrates it; SIGTERM/SIGINT stop gracefully: running runs go back to the queue.
import { stopEngine } from "../lib/engine";
import { startDatasyncEngine } from "../lib/services/run-events";
import { assertValidEnv, env } from "../lib/settings/env";
import { assertProductionSecrets } from "../lib/settings/secrets";
import { surviveDatabaseOutages } from "../lib/db/health";
import { prepareDatabase } from "../lib/db/runtime";
import { logger } from "../lib/logger";

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

async function main() {
  assertValidEnv();
  surviveDatabaseOutages(logger);
  // A worker decrypts connector secrets and verifies nothing else, but the same rule as the web process
  // applies: production runs with real keys, never generated or default ones.
  assertProductionSecrets();
  const db = await prepareDatabase((line) => logger.info(line), { ownSignals: true });
  await startDatasyncEngine({ worker: true, scheduler: env.WORKER_SCHEDULER });
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
