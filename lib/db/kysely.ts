// Typed SQL: a Kysely query builder over the application's pg pool, typed by the tables and columns
// of prisma/schema.prisma (lib/generated/kysely/db.ts, written by scripts/prisma-generate.ts). A
// renamed column then fails the build instead of a query at run time. COPY and binary wire paths stay
// raw in their own modules.
import "server-only";
import { DummyDriver, Kysely, PostgresAdapter, PostgresDialect, PostgresIntrospector, PostgresQueryCompiler, sql, type Compilable, type CompiledQuery, type InferResult, type RawBuilder } from "kysely";
import type { Client, Pool, PoolClient } from "pg";
import type { DB } from "@/lib/generated/kysely/db";
import { pgPool, preparedRows, rawTypes, type IsoTimestamp } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

export type { DB } from "@/lib/generated/kysely/db";

interface Globals {
  kysely?: { pool: Pool; db: Kysely<DB> };
  builder?: Kysely<DB>;
}
const globals = globalThis as unknown as Globals;

// Kysely calls `client.query(text, values)`; answered with `rawTypes` so that its rows read as
// Prisma's and queryRows' do (int8 as bigint, zone-less timestamps as UTC), as the generated types say.
const typedClients = new WeakMap<PoolClient, PoolClient>();
function typedClient(client: PoolClient): PoolClient {
  let typed = typedClients.get(client);
  if (!typed) {
    typed = new Proxy(client, {
      get(target, key) {
        if (key === "query") {
          return (text: unknown, values?: unknown[]) =>
            typeof text === "string" ? target.query({ text, values, types: rawTypes }) : target.query(text as never, values as never);
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    typedClients.set(client, typed);
  }
  return typed;
}

/**
 * The right side of `column = ANY($1::type[])`: the list goes as one array parameter, so the
 * statement's text (and a prepared plan) stays the same whatever its length, as Kysely's `in` would not.
 */
export function anyOf<T extends string | number>(values: readonly T[], type: "sync_run_status" | "int" | "text"): RawBuilder<T> {
  return sql<T>`ANY(${[...values]}::${sql.raw(type)}[])`;
}

/**
 * A builder that never connects, for queries run with `viaClient` on a connection the caller holds
 * (an engine transaction): it needs no application database of this process to build them.
 */
export function sqlBuilder(): Kysely<DB> {
  globals.builder ??= new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return globals.builder;
}

/** The query builder of this process, on the pool Prisma and queryRows share (closed with it). */
export function db(): Kysely<DB> {
  const pool = pgPool();
  // closeDatabase() replaces the pool; a builder on the old one would fail with "pool ended".
  if (globals.kysely?.pool !== pool) {
    globals.kysely = {
      pool,
      db: new Kysely<DB>({
        // `end` is a no-op: the pool is closeDatabase()'s to end, with Prisma on it.
        dialect: new PostgresDialect({
          pool: { options: pool.options, connect: async () => typedClient(await pool.connect()), end: async () => {} },
        }),
      }),
    };
  }
  return globals.kysely.db;
}

/**
 * Runs a built query through Prisma (`tx`: a transaction, or the client), where the statement must
 * share Prisma's transaction: built and typed by Kysely, executed by Prisma, which reads the rows
 * the same way (int8 bigint, timestamps Date, json parsed).
 */
export async function viaPrisma<Q extends Compilable<unknown>>(tx: Pick<Prisma.TransactionClient, "$queryRawUnsafe">, query: Q): Promise<InferResult<Q>> {
  const compiled = query.compile();
  return tx.$queryRawUnsafe(compiled.sql, ...compiled.parameters);
}

/** Runs a built query on a checked-out pg client (a transaction of lib/engine/transaction), a connection of its own or a given pool, rows read as db()'s. */
export async function viaClient<Q extends Compilable<unknown>>(client: Pool | PoolClient | Client, query: Q): Promise<InferResult<Q>> {
  const compiled = query.compile();
  const result = await client.query({ text: compiled.sql, values: compiled.parameters as unknown[], types: rawTypes });
  return result.rows as InferResult<Q>;
}

/** A row as `selectRows(query, { timestamps: "iso" })` reads it: each timestamp ISO text, not a Date. */
export type IsoRow<R> = { [K in keyof R]: R[K] extends Date ? IsoTimestamp : Date extends R[K] ? Exclude<R[K], Date> | IsoTimestamp : R[K] };

/**
 * A hot read of a built query (build it with `sqlBuilder()`): queryRows' prepared statement on the
 * pool, without Kysely's connection round trip, rows typed by the query. `timestamps: "iso"` reads
 * timestamps as ISO text (a list's hundreds of values), and the row type says so.
 */
export async function selectRows<Q extends Compilable<unknown>>(query: Q): Promise<InferResult<Q>>;
export async function selectRows<Q extends Compilable<unknown>>(query: Q, options: { timestamps: "iso" }): Promise<IsoRow<InferResult<Q>[number]>[]>;
export async function selectRows<Q extends Compilable<unknown>>(query: Q, options: { timestamps?: "iso" } = {}): Promise<unknown[]> {
  const compiled = query.compile();
  return preparedRows(compiled.sql, compiled.parameters, options);
}

const SLOT = Symbol("slot");
/** Compiled shapes kept per compiledByShape query (as many as client.ts keeps prepared statements). */
const MAX_SHAPES = 256;
type Slot = { readonly [SLOT]: string };
const isSlot = (v: unknown): v is Slot => typeof v === "object" && v !== null && SLOT in v;

/**
 * A hot query compiled once per shape: building and compiling a Kysely query costs ~0.1–0.2 ms, which
 * a query run on every request (authentication, a page of records) would pay each time. `build`
 * gets `at`, whose members stand for the values: it must pass them into the query unchanged (no
 * arithmetic on them; anything that changes the text belongs in `shape`). Each call then only puts
 * its values in their places. Run the result with selectRows.
 */
export function compiledByShape<Shape, Values extends object, Q extends Compilable<unknown>>(
  build: (shape: Shape, at: Values) => Q,
  keyOf: (shape: Shape) => string = String,
): (shape: Shape, values: Values) => Compilable<InferResult<Q>[number]> {
  const at = new Proxy({}, { get: (_target, name) => ({ [SLOT]: String(name) }) }) as Values;
  // Shapes are few (a union, a handful of flags, a page size): the map stays small. Past MAX_SHAPES
  // (shapes a caller can vary, as a list's sort and page size) the rest compile per call, unkept.
  const compiled = new Map<string, CompiledQuery<unknown>>();
  return (shape, values) => {
    const key = keyOf(shape);
    let query = compiled.get(key);
    if (!query) {
      query = build(shape, at).compile();
      if (compiled.size < MAX_SHAPES) compiled.set(key, query);
    }
    const parameters = query.parameters.map((p) => (isSlot(p) ? values[p[SLOT] as keyof Values] : p));
    const call: CompiledQuery<InferResult<Q>[number]> = { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
    return { compile: () => call };
  };
}
