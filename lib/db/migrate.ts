// Reads prisma/migrations (Prisma's own layout) and applies what a database has not seen yet.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "pg";
import type { MigrationTables } from "./declared-relations";
import { sqlBuilder, viaClient } from "./kysely";
import { applyMigrations, parsePgUrl, type MigrationDir } from "./schema-engine";

export const PRISMA_DIR = path.resolve(process.cwd(), "prisma");
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, "migrations");
export const SCHEMA_FILE = path.join(PRISMA_DIR, "schema.prisma");
/** The schema as of the newest migration, so a new migration is a diff against it. */
export const SNAPSHOT_FILE = path.join(MIGRATIONS_DIR, "schema.prisma.snapshot");

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationDir[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => ({ name, sql: await readFile(path.join(dir, name, "migration.sql"), "utf8") })),
  );
}

/**
 * True when `_prisma_migrations` records every migration as finished. The usual start (nothing to
 * apply) then skips the schema engine, whose WebAssembly instance would keep ~45 MB of a worker's
 * memory for the life of the process.
 */
async function upToDate(url: string, migrations: MigrationDir[]): Promise<boolean> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const rows = await viaClient(
      client,
      sqlBuilder().withTables<MigrationTables>().selectFrom("_prisma_migrations").select("migration_name").where("finished_at", "is not", null).where("rolled_back_at", "is", null),
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return migrations.every((m) => applied.has(m.name));
  } catch {
    return false; // no migrations table yet, or unreachable: the engine reports what is wrong
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Applies every pending migration to the database at `url`; returns the names applied. */
export async function migrateDatabase(url: string): Promise<string[]> {
  const [schema, migrations] = await Promise.all([readFile(SCHEMA_FILE, "utf8"), readMigrations()]);
  if (await upToDate(url, migrations)) return [];
  const lockPath = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  const lockfile = existsSync(lockPath) ? await readFile(lockPath, "utf8") : null;
  const target = parsePgUrl(url);
  return applyMigrations(schema, target, MIGRATIONS_DIR, migrations, lockfile);
}
