// Prisma's schema engine compiled to WebAssembly: migrations without the native engine binary,
// which cannot be downloaded on every machine. Its default entry imports the .wasm as an ES module
// (a Node flag); instead we instantiate the .wasm ourselves and hand it to the JS glue.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { SchemaEngine } from "@prisma/schema-engine-wasm/schema_engine_bg";

type Glue = typeof import("@prisma/schema-engine-wasm/schema_engine_bg");

let gluePromise: Promise<Glue> | undefined;

let lastPanic = "";

async function loadGlue(): Promise<Glue> {
  // The glue reports Rust panics through this global; keep the message for the thrown error.
  (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
    set_message: (message: string) => {
      lastPanic = message;
    },
  };
  const glue: Glue = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const bytes = await readFile(path.join(pkgDir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, {
    "./schema_engine_bg.js": glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return glue;
}

function glue(): Promise<Glue> {
  gluePromise ??= loadGlue();
  return gluePromise;
}

export interface PgTarget {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

/** Parses a postgres:// URL into the separate fields PrismaPg needs for its shadow connection. */
export function parsePgUrl(url: string): PgTarget & { schema?: string } {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || "postgres"),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
    schema: u.searchParams.get("schema") ?? undefined,
  };
}

const noFilter = { externalTables: [], externalEnums: [] };

/**
 * The pg adapter runs a migration by splitting it on every ";", which cuts a `$$`-quoted function
 * body apart. Send the script as one simple query instead, as Prisma's native engine does: the
 * server parses it (quoting included) and runs it as one implicit transaction.
 */
function sendScriptsWhole(adapter: unknown): void {
  const a = adapter as {
    client: { query(sql: string): Promise<unknown> };
    onError(err: unknown): never;
    executeScript(script: string): Promise<void>;
  };
  a.executeScript = async (script) => {
    try {
      await a.client.query(script);
    } catch (err) {
      a.onError(err);
    }
  };
}

async function withEngine<T>(
  schemaText: string,
  target: PgTarget,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await glue();
  const factory = new PrismaPg({ ...target, connectionTimeoutMillis: 10_000 });
  // The engine never disposes what it connects; keep the adapters so their pools can be closed.
  const opened: { dispose(): Promise<void> }[] = [];
  for (const method of ["connect", "connectToShadowDb"] as const) {
    const original = factory[method].bind(factory);
    factory[method] = async () => {
      const adapter = await original();
      opened.push(adapter);
      sendScriptsWhole(adapter);
      return adapter;
    };
  }
  const adapter = bindMigrationAwareSqlAdapterFactory(factory as never);
  const logs: string[] = [];
  const engine = await SchemaEngine.new(
    { datamodels: [["schema.prisma", schemaText]] },
    (line: string) => logs.push(line),
    adapter as never,
  );
  try {
    return await fn(engine);
  } catch (err) {
    if (lastPanic) throw new Error(`schema engine panicked: ${lastPanic}`, { cause: err });
    throw err;
  } finally {
    engine.free();
    await Promise.all(opened.map((a) => a.dispose().catch(() => undefined)));
  }
}

/** The SQL that takes a database from `fromSchema` (or nothing) to `toSchema`. */
export async function diffSchemas(
  fromSchema: string | null,
  toSchema: string,
  target: PgTarget,
): Promise<string> {
  // The engine insists on a reachable database even for a pure schema-to-schema diff.
  return withEngine(toSchema, target, async (engine) => {
    const from = fromSchema
      ? { tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content: fromSchema }] }
      : { tag: "empty" as const };
    const result = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: toSchema }] },
      script: true,
      exitCode: null,
      filters: noFilter,
    });
    return result.stdout ?? "";
  });
}

export interface MigrationDir {
  name: string;
  sql: string;
}

/** Applies pending migrations and records them in Prisma's own `_prisma_migrations` table. */
export async function applyMigrations(
  schemaText: string,
  target: PgTarget,
  baseDir: string,
  migrations: MigrationDir[],
  lockfile: string | null,
): Promise<string[]> {
  return withEngine(schemaText, target, async (engine) => {
    const out = await engine.applyMigrations({
      migrationsList: {
        baseDir,
        lockfile: { path: "migration_lock.toml", content: lockfile },
        shadowDbInitScript: "",
        migrationDirectories: migrations.map((m) => ({
          path: m.name,
          migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.sql } },
        })),
      },
      filters: noFilter,
    });
    return out.appliedMigrationNames;
  });
}
