// The generated Kysely types against the migrated database: every column of a few tables, its
// nullability (scalar lists are created without NOT NULL), and the rows the builder reads (bigint, Date) as the types say.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { readPrismaSchema } from "@/scripts/kysely-types";
import { compiledByShape, db, sqlBuilder } from "./kysely";

useTestDatabase();

const schema = readPrismaSchema(readFileSync("prisma/schema.prisma", "utf8"));

describe("generated Kysely types", () => {
  it.each(["syncs", "sync_runs", "login_throttles", "trigger_keys", "alert_rules", "sync_record_blocks"])(
    "%s: the schema's columns and nullability are the database's",
    async (table) => {
      const model = schema.models.find((m) => m.table === table);
      expect(model, table).toBeDefined();
      const columns = await prisma().$queryRaw<{ column_name: string; is_nullable: string }[]>`
        SELECT column_name, is_nullable FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = ${table}`;
      const fromDatabase = Object.fromEntries(columns.map((c) => [c.column_name, c.is_nullable === "YES"]));
      const fromSchema = Object.fromEntries(model!.fields.filter((f) => !f.relation).map((f) => [f.column, f.optional || f.list]));
      expect(fromSchema).toEqual(fromDatabase);
    },
  );

  it("reads rows as the generated types say: timestamps as Date, int8 as bigint", async () => {
    await prisma().$executeRaw`INSERT INTO login_throttles (key, failures, window_started_at, updated_at) VALUES ('k', 2, now(), now())`;
    const row = await db().selectFrom("login_throttles").select(["key", "failures", "updated_at"]).where("key", "=", "k").executeTakeFirstOrThrow();
    expect(row.failures).toBe(2);
    expect(row.updated_at).toBeInstanceOf(Date);
    const { big } = await db().selectNoFrom((eb) => eb.cast<bigint>(eb.val("9007199254740993"), "bigint").as("big")).executeTakeFirstOrThrow();
    expect(big).toBe(9007199254740993n);
  });
});

describe("compiledByShape", () => {
  it("compiles a shape once, keeps at most 256 (a caller can vary a list's page size), and puts each call's values in", () => {
    let builds = 0;
    const query = compiledByShape((take: number, at: { id: number }) => {
      builds++;
      return sqlBuilder().selectFrom("syncs").select("id").where("id", "=", at.id).limit(take);
    });
    for (let take = 1; take <= 300; take++) query(take, { id: take });
    expect(builds).toBe(300);
    expect(query(1, { id: 7 }).compile().parameters).toEqual([7, 1]);
    expect(builds).toBe(300);
    expect(query(300, { id: 8 }).compile().parameters).toEqual([8, 300]);
    expect(builds).toBe(301);
  });
});
