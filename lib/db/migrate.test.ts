// The migrations in prisma/migrations and prisma/schema.prisma must describe the same database:
// one database built from every migration, one from the empty → schema diff, catalogs compared.
import { readFile } from "node:fs/promises";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { migrateDatabase, readMigrations, SCHEMA_FILE } from "./migrate";
import { diffSchemas, parsePgUrl } from "./schema-engine";

const CATALOG_QUERIES = {
  columns: `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, collation_name
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
            ORDER BY 1, 2`,
  indexes: `SELECT tablename, indexname, indexdef FROM pg_indexes
            WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1, 2`,
  constraints: `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                AND conrelid::regclass::text <> '_prisma_migrations' ORDER BY 1, 2`,
  enums: `SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
          ORDER BY 1, e.enumsortorder`,
};

/** Objects only the migrations create (see 20261123182422_pass_through_records, 20261127161822_record_blocks, 20261129085648_state_blocks). */
const HAND_WRITTEN = {
  indexes: ["sync_record_blocks_failed"],
  views: ["sync_record_rows", "sync_state_entries"],
  collations: [
    ["sync_states", "primary_key", "C"],
    ["sync_state_blocks", "first_key", "C"],
    ["sync_state_blocks", "last_key", "C"],
    ["sync_state_blocks", "keys", "C"],
  ] as const,
};

async function catalog(url: string) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, unknown[]> = {};
    for (const [name, sql] of Object.entries(CATALOG_QUERIES)) out[name] = (await client.query(sql)).rows;
    return out;
  } finally {
    await client.end();
  }
}

const scratch: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((s) => s.drop()));
});

describe("migrations", () => {
  it("agree with schema.prisma", async () => {
    const fromMigrations = await createScratchDatabase("ds_mig");
    const fromSchema = await createScratchDatabase("ds_sch");
    scratch.push(fromMigrations, fromSchema);

    const applied = await migrateDatabase(fromMigrations.url);
    expect(applied).toEqual((await readMigrations()).map((m) => m.name));

    const sql = await diffSchemas(null, await readFile(SCHEMA_FILE, "utf8"), parsePgUrl(fromSchema.url));
    const client = new Client({ connectionString: fromSchema.url });
    await client.connect();
    await client.query(sql);
    await client.end();

    const migrated = await catalog(fromMigrations.url);
    const declared = await catalog(fromSchema.url);
    // What schema.prisma cannot say (a partial index, a column collation) is written by hand in a
    // migration: it must be there, and is the only difference allowed.
    const handWritten = migrated.indexes.filter((i) => HAND_WRITTEN.indexes.includes((i as { indexname: string }).indexname));
    expect(handWritten).toHaveLength(HAND_WRITTEN.indexes.length);
    migrated.indexes = migrated.indexes.filter((i) => !handWritten.includes(i));
    const isView = (c: unknown) => HAND_WRITTEN.views.includes((c as { table_name: string }).table_name);
    expect(new Set(migrated.columns.filter(isView).map((c) => (c as { table_name: string }).table_name))).toEqual(new Set(HAND_WRITTEN.views));
    migrated.columns = migrated.columns.filter((c) => !isView(c));
    for (const [table, column, collation] of HAND_WRITTEN.collations) {
      const at = (c: unknown) => (c as { table_name: string }).table_name === table && (c as { column_name: string }).column_name === column;
      expect(migrated.columns.find(at)).toMatchObject({ collation_name: collation });
      Object.assign(migrated.columns.find(at) as object, { collation_name: (declared.columns.find(at) as { collation_name: unknown }).collation_name });
    }
    expect(migrated).toEqual(declared);
  });

  it("records applied migrations in Prisma's table and applies nothing twice", async () => {
    const db = await createScratchDatabase("ds_mig2");
    scratch.push(db);
    const first = await migrateDatabase(db.url);
    expect(first.length).toBeGreaterThan(0);
    expect(await migrateDatabase(db.url)).toEqual([]);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const rows = await client.query("SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name");
    await client.end();
    expect(rows.rows.map((r) => r.migration_name)).toEqual(first);
    expect(rows.rows.every((r) => r.finished_at !== null)).toBe(true);
  });
});
