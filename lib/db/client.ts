// The one Prisma client of a process. Prisma 7 needs no engine binary: the pg driver adapter runs
// the queries. The pool is shared with raw SQL users (the engine) through `pgPool()`.
import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, types, type CustomTypesConfig } from "pg";
import { env } from "@/lib/config/env";
import { databaseUrl as processDatabaseUrl } from "@/lib/config/process-database";
import { PrismaClient, type Prisma } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";

interface Globals {
  prisma?: PrismaClient;
  pool?: Pool;
}
const globals = globalThis as unknown as Globals;

function databaseUrl(): string {
  const url = processDatabaseUrl();
  if (!url) throw new Error("No application database: start the app with `npm start`, or set DATABASE_URL.");
  return url;
}

/** How long a query or a transaction waits for a free connection of the pool. */
const CONNECTION_WAIT_MS = 10_000;

export function pgPool(): Pool {
  if (!globals.pool) {
    const pool = new Pool({
      connectionString: databaseUrl(),
      max: env.DATABASE_POOL_SIZE,
      // As long as a transaction waits for a connection (below): the shorter of the two decided, and
      // a burst of 100 writes serialised by a lock failed with "timeout exceeded" on a busy machine.
      connectionTimeoutMillis: CONNECTION_WAIT_MS,
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
  // A transaction waits for a free connection as long as a plain query does (Prisma's default of 2 s
  // turned a busy moment on a 2-core machine into a 500 for whoever came next).
  globals.prisma ??= new PrismaClient({
    adapter: new PrismaPg(pgPool()),
    transactionOptions: { maxWait: CONNECTION_WAIT_MS },
  });
  return globals.prisma;
}

export async function closeDatabase(): Promise<void> {
  await globals.prisma?.$disconnect();
  await globals.pool?.end();
  globals.prisma = undefined;
  globals.pool = undefined;
}

// Column types read the way Prisma's $queryRaw reads them. Timestamps are parsed here rather than by
// pg, which reads zone-less values as local time (Prisma: UTC) and scales milliseconds by floating
// point. UTC values (the server's zone) take a fast path: a list page parses over a hundred.
const OID = { INT8: 20, TIMESTAMP: 1114, TIMESTAMPTZ: 1184 } as const;
const UTC_TIMESTAMP = /^([1-9]\d{3})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:\+00)?$/;
function timestamp(value: string, utcIfZoneless: boolean): Date {
  const m = UTC_TIMESTAMP.exec(value);
  if (m && (utcIfZoneless || value.endsWith("+00"))) {
    const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
    return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms));
  }
  // Other zones, years before 1000 or past 9999: an ISO string, the offset as ±HH:MM (or Z).
  const iso = value.replace(" ", "T");
  return new Date(utcIfZoneless ? `${iso}Z` : iso.replace(/([+-]\d\d)$/, "$1:00"));
}
const rawTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === "binary") return types.getTypeParser(oid, format);
    if (oid === OID.INT8) return (value: string) => BigInt(value);
    if (oid === OID.TIMESTAMPTZ) return (value: string) => timestamp(value, false);
    if (oid === OID.TIMESTAMP) return (value: string) => timestamp(value, true);
    return types.getTypeParser(oid, "text");
  }) as CustomTypesConfig["getTypeParser"],
};

/**
 * `prisma().$queryRaw` for hot reads outside a transaction, on the pool directly: the same rows
 * (int4 numbers, int8 BigInt, timestamps Date, json parsed; numeric stays a string, unlike Prisma's
 * Decimal) without Prisma's per-query pipeline, which cost a list request about a tenth of its CPU.
 * Errors are pg's own (code, message), which lib/http/errors maps like Prisma's.
 */
export async function queryRows<T>(query: Prisma.Sql): Promise<T[]> {
  const result = await pgPool().query({ text: query.text, values: query.values, types: rawTypes });
  return result.rows as T[];
}
