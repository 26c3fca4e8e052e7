// Relations of the application database that prisma/schema.prisma cannot describe, made by the
// migrations (20261129085648_state_blocks): the view `sync_state_entries` and the set-returning
// function `ds_states_of`, which read a sync's states from rows and blocks alike. Their columns are
// declared here once, as data: the row types derive from the declaration, and
// declared-relations.test.ts checks it against the migrated database, so a column a migration
// renames fails that test as a table's fails the build through Kysely.
import { sql, type AliasedRawBuilder, type RawBuilder } from "kysely";
import type { SyncRecordStatus } from "@/lib/generated/kysely/db";

/** The PostgreSQL types these relations use, as the application's pg client reads them. */
interface PgTypes {
  int4: number;
  text: string;
  sync_record_status: SyncRecordStatus;
}
type Columns = Readonly<Record<string, keyof PgTypes>>;
type RowOf<C extends Columns> = { [K in keyof C]: PgTypes[C[K]] };

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
