// The one Prisma client of a process. Prisma 7 needs no engine binary: the pg driver adapter runs
// the queries. The pool is shared with raw SQL users (the engine) through `pgPool()`.
import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";

interface Globals {
  prisma?: PrismaClient;
  pool?: Pool;
}
const globals = globalThis as unknown as Globals;

function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the app with `npm start`, which sets it.");
  return url;
}

export function pgPool(): Pool {
  if (!globals.pool) {
    const pool = new Pool({
      connectionString: databaseUrl(),
      max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection dropped by the server (database restart, failover) is reported here; without
    // a listener Node would crash the whole process. The pool replaces the connection on next use.
    pool.on("error", (err) => logger.warn({ err: err.message }, "idle database connection lost"));
    // The same for a connection checked out of the pool but between queries (a transaction, a lock
    // held for a whole run): its holder learns of the loss from its next query instead.
    pool.on("connect", (client) => client.on("error", (err) => logger.debug({ err: err.message }, "database connection lost")));
    globals.pool = pool;
  }
  return globals.pool;
}

export function prisma(): PrismaClient {
  globals.prisma ??= new PrismaClient({ adapter: new PrismaPg(pgPool()) });
  return globals.prisma;
}

export async function closeDatabase(): Promise<void> {
  await globals.prisma?.$disconnect();
  await globals.pool?.end();
  globals.prisma = undefined;
  globals.pool = undefined;
}
