// Typed SQL (eslint.config.mjs, lint/house-rules.mjs): a raw query of the application database with
// a hand-written row type fails lint; a built query, the COPY home and connectors pass.
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RULE = "house/typed-sql";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function rawErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe("typed SQL", () => {
  it.each([
    ["lib/engine/example.ts", 'import { pgPool } from "@/lib/db/client";\nexport const x = () => pgPool().query<{ id: number }>("SELECT id FROM syncs");'],
    ["lib/services/syncs/example.ts", 'import { queryRows } from "@/lib/db/client";\nimport { Prisma } from "@/lib/generated/prisma/client";\nexport const x = () => queryRows<{ id: number }>(Prisma.sql`SELECT id FROM syncs`);'],
    ["lib/services/syncs/example.ts", 'import { prisma } from "@/lib/db/client";\nexport const x = () => prisma().$queryRaw<{ id: number }[]>`SELECT id FROM syncs`;'],
    ["app/api/v1/example/route.ts", 'export const x = (c: { query<T>(t: string): T }) => c.query<{ n: number }>("SELECT 1 AS n");'],
  ])("%s may not `%s`", async (file, code) => {
    expect(await rawErrors(file, code)).toEqual([expect.stringContaining("types a raw query's rows by hand")]);
  });

  it.each([
    ["lib/engine/example.ts", 'import { sqlBuilder, viaClient } from "@/lib/db/kysely";\nimport type { PoolClient } from "pg";\nexport const x = (c: PoolClient) => viaClient(c, sqlBuilder().selectFrom("syncs").select("id"));'],
    ["lib/db/pg-wire/example.ts", 'export const x = (c: { query<T>(t: string): T }) => c.query<{ n: number }>("SELECT 1 AS n");'],
    ["lib/connectors/postgresql/example.ts", 'export const x = (c: { query<T>(t: string): T }) => c.query<{ n: number }>("SELECT 1 AS n");'],
    ["lib/engine/example.test.ts", 'export const x = (c: { query<T>(t: string): T }) => c.query<{ n: number }>("SELECT 1 AS n");'],
    // An untyped statement that reads no rows (a lock, a savepoint) is no row type written by hand.
    ["lib/engine/example.ts", 'export const x = (c: { query(t: string): unknown }) => c.query("SAVEPOINT a");'],
  ])("%s may `%s`", async (file, code) => {
    expect(await rawErrors(file, code)).toEqual([]);
  });
});
