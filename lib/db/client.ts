// The one Prisma client of a process. Prisma 7 needs no engine binary: the pg driver adapter runs
// the queries. The pool is shared with raw SQL users (the engine) through `pgPool()`.
import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, types, type CustomTypesConfig } from "pg";
import { env } from "@/lib/settings/env";
import { databaseUrl as processDatabaseUrl } from "@/lib/settings/process-database";
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
  // turned a busy moment on a 2-core machine into a 500 for whoever came next). Its own run may last
  // 20 s, not Prisma's 5: creates serialized behind a per-workspace lock (alert and workspace caps)
  // queue inside their transactions, and a burst of them on a loaded machine outlasted 5 s.
  globals.prisma ??= new PrismaClient({
    adapter: new PrismaPg(pgPool()),
    transactionOptions: { maxWait: CONNECTION_WAIT_MS, timeout: 20_000 },
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
export const rawTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === "binary") return types.getTypeParser(oid, format);
    if (oid === OID.INT8) return (value: string) => BigInt(value);
    if (oid === OID.TIMESTAMPTZ) return (value: string) => timestamp(value, false);
    if (oid === OID.TIMESTAMP) return (value: string) => timestamp(value, true);
    return types.getTypeParser(oid, "text");
  }) as CustomTypesConfig["getTypeParser"],
};

/** A timestamp read by queryRows with `timestamps: "iso"`: ISO 8601 UTC with milliseconds, as Date#toISOString writes it. */
export type IsoTimestamp = string;

// UTC values (every value read in the server's zone) become ISO text directly: a list page has
// hundreds of timestamps, and a Date per value then toISOString() was a tenth of its CPU (Next
// wraps the global Date constructor, which makes `new Date` several times slower).
// Checked without captures and cut by position: a match array per value was most of the cost.
const UTC_TEXT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?(?:\+00)?$/;
function isoTimestamp(value: string, utcIfZoneless: boolean): IsoTimestamp {
  const zoned = value.endsWith("+00");
  if ((zoned || utcIfZoneless) && UTC_TEXT.test(value)) {
    // "YYYY-MM-DD HH:MM:SS[.f…][+00]": the fraction, if any, starts at 20.
    const end = zoned ? value.length - 3 : value.length;
    const ms = end === 19 ? "000" : end >= 23 ? value.slice(20, 23) : value.slice(20, end).padEnd(3, "0");
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${ms}Z`;
  }
  return timestamp(value, utcIfZoneless).toISOString();
}
const isoTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format !== "binary" && oid === OID.TIMESTAMPTZ) return (value: string) => isoTimestamp(value, false);
    if (format !== "binary" && oid === OID.TIMESTAMP) return (value: string) => isoTimestamp(value, true);
    return rawTypes.getTypeParser(oid, format);
  }) as CustomTypesConfig["getTypeParser"],
};

/**
 * Names of prepared statements by their text. A named statement is parsed and planned once per
 * connection, then executed from PostgreSQL's plan cache: planning the sync list's joins cost the
 * database three times what running them did. The texts queryRows sees are few (one per query and
 * filter combination); past MAX_PREPARED distinct texts the rest run unnamed, so no caller can make
 * the server keep an unbounded number of plans per connection.
 */
const MAX_PREPARED = 256;
const statementNames = new Map<string, string>();
function statementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined || statementNames.size >= MAX_PREPARED) return known;
  const name = `ds_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
  statementNames.set(text, name);
  return name;
}

export interface QueryRowsOptions {
  /** "date" (default): timestamps as Date, as $queryRaw reads them; "iso": as IsoTimestamp text. */
  timestamps?: "date" | "iso";
}

/**
 * `prisma().$queryRaw` for hot reads outside a transaction, on the pool directly: the same rows
 * (int4 numbers, int8 BigInt, timestamps Date, json parsed; numeric stays a string, unlike Prisma's
 * Decimal) without Prisma's per-query pipeline, which cost a list request about a tenth of its CPU.
 * Statements are prepared (statementName). Errors are pg's own (code, message), which
 * lib/http/errors maps like Prisma's.
 */
export async function queryRows<T>(query: Prisma.Sql, options: QueryRowsOptions = {}): Promise<T[]> {
  return (await preparedRows(query.text, query.values, options)) as T[];
}

/** queryRows' statement for any text and values (a built query's: lib/db/kysely.ts selectRows). */
export async function preparedRows(text: string, values: readonly unknown[], options: QueryRowsOptions = {}): Promise<unknown[]> {
  const result = await pgPool().query({
    name: statementName(text),
    text,
    values: values as unknown[],
    types: options.timestamps === "iso" ? isoTypes : rawTypes,
  });
  return result.rows;
}
