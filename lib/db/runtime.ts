// Decides which PostgreSQL the app uses (DATABASE_URL, else the embedded one) and brings it to the
// current schema. Called once per process by the start script, the worker and the test harness.
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";

export const dataDir = (): string => path.resolve(process.env.DATA_DIR ?? ".data");

export interface DatabaseHandle {
  url: string;
  embedded?: EmbeddedDatabase;
  stop(): Promise<void>;
}

/** Starts the embedded database when DATABASE_URL is unset; returns the URL to use. */
export async function openDatabase(
  log: (line: string) => void = () => undefined,
  options: { ownSignals?: boolean } = {},
): Promise<DatabaseHandle> {
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, stop: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: dataDir(),
    port: process.env.EMBEDDED_PG_PORT ? Number(process.env.EMBEDDED_PG_PORT) : undefined,
    log,
    ownSignals: options.ownSignals,
  });
  return { url: embedded.url, embedded, stop: () => embedded.stop() };
}

/** Opens the database and applies pending migrations. */
export async function prepareDatabase(
  log: (line: string) => void = () => undefined,
  options: { ownSignals?: boolean } = {},
): Promise<DatabaseHandle> {
  const handle = await openDatabase(log, options);
  const applied = await migrateDatabase(handle.url);
  if (applied.length) log(`applied migrations: ${applied.join(", ")}`);
  return handle;
}
