// Relations of the application database that prisma/schema.prisma cannot describe: the view
// `sync_state_entries` and the set-returning function `ds_states_of` of our migrations
// (20261129085648_state_blocks), which read a sync's states from rows and blocks alike, and the
// tables of the libraries we run on it (pg-boss's queue, Prisma's migration record). Their columns are
// declared here once, as data: the row types derive from the declaration, and
// declared-relations.test.ts checks it against the migrated database (and a started queue), so a
// column renamed there fails that test as a table's fails the build through Kysely.
import { sql, type AliasedRawBuilder, type RawBuilder } from "kysely";
import type { SyncRecordStatus } from "@/lib/generated/kysely/db";

/** The PostgreSQL types these relations use, as the application's pg client reads them; `?`: nullable. */
interface PgTypes {
  int4: number;
  text: string;
  varchar: string;
  uuid: string;
  jsonb: unknown;
  timestamptz: Date;
  sync_record_status: SyncRecordStatus;
  job_state: "created" | "retry" | "active" | "completed" | "cancelled" | "failed";
}
type Declared = keyof PgTypes | `${keyof PgTypes}?`;
type Columns = Readonly<Record<string, Declared>>;
type TsOf<D extends Declared> = D extends `${infer T extends keyof PgTypes}?` ? PgTypes[T] | null : D extends keyof PgTypes ? PgTypes[D] : never;
type RowOf<C extends Columns> = { [K in keyof C]: TsOf<C[K]> };

/** The columns of `ds_states_of(sync, keys)`: one per key that has a state. */
export const STATES_OF_COLUMNS = {
  primary_key: "text",
  fingerprint: "text",
  last_status: "sync_record_status",
  last_run_id: "int4",
} as const satisfies Columns;

/** The columns of the view `sync_state_entries`: every state of every sync. */
export const STATE_ENTRY_COLUMNS = { sync_id: "int4", ...STATES_OF_COLUMNS } as const satisfies Columns;

export type StateOfKey = RowOf<typeof STATES_OF_COLUMNS>;
export type StateEntry = RowOf<typeof STATE_ENTRY_COLUMNS>;

/** pg-boss's job table (in its own schema, engineSettings.bossSchema): the columns read here. */
export const BOSS_JOB_COLUMNS = {
  id: "uuid",
  name: "text",
  data: "jsonb?",
  state: "job_state",
  started_on: "timestamptz?",
} as const satisfies Columns;

/** Prisma's record of applied migrations: the columns read here. */
export const PRISMA_MIGRATION_COLUMNS = {
  migration_name: "varchar",
  finished_at: "timestamptz?",
  rolled_back_at: "timestamptz?",
} as const satisfies Columns;

/** pg-boss's tables, for `sqlBuilder().withTables<BossTables>().withSchema(bossSchema)`. */
export type BossTables = { job: RowOf<typeof BOSS_JOB_COLUMNS> };

/** Prisma's migration table, for `sqlBuilder().withTables<MigrationTables>()`. */
export type MigrationTables = { _prisma_migrations: RowOf<typeof PRISMA_MIGRATION_COLUMNS> };

/** The declared views, for `sqlBuilder().withTables<DeclaredViews>()`. */
export type DeclaredViews = {
  sync_state_entries: StateEntry;
};

const isList = (keys: readonly string[] | RawBuilder<string[]>): keys is readonly string[] => Array.isArray(keys);

/**
 * The states of `keys` of the sync (rows and block entries; a key without a state has no row), as
 * the relation `s`. `keys`: a list (one text[] parameter), or an SQL expression of type text[].
 */
export function statesOf(syncId: number, keys: readonly string[] | RawBuilder<string[]>): AliasedRawBuilder<StateOfKey, "s"> {
  const list = isList(keys) ? sql<string[]>`${[...keys]}::text[]` : keys;
  return sql<StateOfKey>`ds_states_of(${syncId}, ${list})`.as("s");
}
