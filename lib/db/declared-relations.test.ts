// The declared view and function (declared-relations.ts) against the migrated database: the same
// columns, in the same order, of the same types; and a read through them typed as declared.
import { afterAll, describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { getBoss, stopBoss } from "@/lib/engine/queue";
import { engineSettings } from "@/lib/engine/settings";
import { BOSS_JOB_COLUMNS, PRISMA_MIGRATION_COLUMNS, STATE_ENTRY_COLUMNS, STATES_OF_COLUMNS, statesOf, type DeclaredViews } from "./declared-relations";
import { sqlBuilder, viaClient } from "./kysely";

useTestDatabase();
afterAll(() => stopBoss());

describe("declared relations", () => {
  it("sync_state_entries has the declared columns", async () => {
    const { rows } = await pgPool().query(
      `SELECT column_name, udt_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'sync_state_entries' ORDER BY ordinal_position`,
    );
    expect(Object.fromEntries(rows.map((r: { column_name: string; udt_name: string }) => [r.column_name, r.udt_name]))).toEqual(STATE_ENTRY_COLUMNS);
    expect(rows.map((r: { column_name: string }) => r.column_name)).toEqual(Object.keys(STATE_ENTRY_COLUMNS));
  });

  it.each([
    ["pg-boss's job", (): string => engineSettings.bossSchema, "job", BOSS_JOB_COLUMNS],
    ["Prisma's migration record", (): string => "public", "_prisma_migrations", PRISMA_MIGRATION_COLUMNS],
  ] as const)("%s table has the declared columns, types and nullability", async (_name, schema, table, declared) => {
    await getBoss(); // installs the queue's schema
    const { rows } = await pgPool().query(
      `SELECT column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
      [schema(), table],
    );
    const actual = Object.fromEntries(
      rows.map((r: { column_name: string; udt_name: string; is_nullable: string }) => [r.column_name, `${r.udt_name}${r.is_nullable === "YES" ? "?" : ""}`]),
    );
    for (const [column, type] of Object.entries(declared)) expect(actual[column], `${table}.${column}`).toBe(type);
  });

  it("ds_states_of returns the declared columns", async () => {
    const { rows } = await pgPool().query(
      `SELECT a.name, format_type(a.type, NULL) AS type
         FROM pg_proc p
        CROSS JOIN LATERAL unnest(p.proargnames, p.proallargtypes, p.proargmodes) WITH ORDINALITY AS a(name, type, mode, n)
        WHERE p.proname = 'ds_states_of' AND p.pronamespace = current_schema()::regnamespace AND a.mode = 't'
        ORDER BY a.n`,
    );
    const named = { text: "text", integer: "int4", sync_record_status: "sync_record_status" } as Record<string, string>;
    expect(rows.map((r: { name: string; type: string }) => [r.name, named[r.type] ?? r.type])).toEqual(Object.entries(STATES_OF_COLUMNS));
  });

  it("built reads through them get the rows as declared", async () => {
    const pool = pgPool();
    const syncId = 900_001;
    await viaClient(
      pool,
      sqlBuilder()
        .insertInto("sync_states")
        .values({ sync_id: syncId, primary_key: "a", fingerprint: "0123456789abcdef0123456789abcdef", last_status: "success", last_run_id: 7 }),
    );
    const found = await viaClient(pool, sqlBuilder().selectFrom(statesOf(syncId, ["a", "b"])).selectAll());
    expect(found).toEqual([{ primary_key: "a", fingerprint: "0123456789abcdef0123456789abcdef", last_status: "success", last_run_id: 7 }]);
    const all = await viaClient(pool, sqlBuilder().withTables<DeclaredViews>().selectFrom("sync_state_entries").selectAll().where("sync_id", "=", syncId));
    expect(all).toEqual([{ sync_id: syncId, ...found[0] }]);
  });
});
