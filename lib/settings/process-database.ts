// Which PostgreSQL this process uses as its application database. DATABASE_URL names one; without
// it, start-up opens the embedded PostgreSQL (lib/db/runtime.ts) and records it here, for the Prisma
// client, the queue and the net policy (which refuses the application database as a connector's
// target). Kept on globalThis: Next bundles its own copy of each module, and the route handlers it
// serves in this process must see the database the start script opened.
import { env } from "./env";

export interface ProcessDatabase {
  url: string;
  /** True for the embedded PostgreSQL under DATA_DIR (no DATABASE_URL). */
  embedded: boolean;
}

declare global {
  var __datasyncDatabase: ProcessDatabase | undefined;
}

/** Called once the database is open (lib/db/runtime.ts). */
export function setProcessDatabase(db: ProcessDatabase): void {
  globalThis.__datasyncDatabase = db;
}

/** The application database's URL: the one start-up opened, else DATABASE_URL; undefined before either. */
export function databaseUrl(): string | undefined {
  return globalThis.__datasyncDatabase?.url ?? env.DATABASE_URL;
}

/** True when this process runs (or, before start-up opened it, will run) on the embedded PostgreSQL. */
export function usesEmbeddedDatabase(): boolean {
  return globalThis.__datasyncDatabase?.embedded ?? env.DATABASE_URL === undefined;
}
