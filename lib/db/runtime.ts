// Decides which PostgreSQL the app uses (DATABASE_URL, else the embedded one), records it for the
// rest of the process (lib/settings/process-database.ts) and brings it to the current schema. Called
// once per process by the start script, the worker and the database scripts.
import path from "node:path";
import { env } from "@/lib/settings/env";
import { setProcessDatabase } from "@/lib/settings/process-database";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";

export const dataDir = (): string => path.resolve(env.DATA_DIR);

export interface DatabaseHandle {
  url: string;
  embedded?: EmbeddedDatabase;
  stop(): Promise<void>;
}

/** Starts the embedded database when DATABASE_URL is unset; records and returns the URL to use. */
export async function openDatabase(
  log: (line: string) => void = () => undefined,
  options: { ownSignals?: boolean } = {},
): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) {
    setProcessDatabase({ url: env.DATABASE_URL, embedded: false });
    return { url: env.DATABASE_URL, stop: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: dataDir(),
    port: env.EMBEDDED_PG_PORT,
    log,
    ownSignals: options.ownSignals,
  });
  setProcessDatabase({ url: embedded.url, embedded: true });
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
