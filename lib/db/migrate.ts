// Reads prisma/migrations (Prisma's own layout) and applies what a database has not seen yet.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
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

/** Applies every pending migration to the database at `url`; returns the names applied. */
export async function migrateDatabase(url: string): Promise<string[]> {
  const [schema, migrations] = await Promise.all([readFile(SCHEMA_FILE, "utf8"), readMigrations()]);
  const lockPath = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  const lockfile = existsSync(lockPath) ? await readFile(lockPath, "utf8") : null;
  const target = parsePgUrl(url);
  return applyMigrations(schema, target, MIGRATIONS_DIR, migrations, lockfile);
}
