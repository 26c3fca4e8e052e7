// queryRows must read rows exactly as prisma().$queryRaw does (the hot list endpoints moved from one
// to the other and their bodies must not change), and timestamps correctly in any session zone.
import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { useTestDatabase } from "@/tests/support/db";
import { prisma, queryRows } from "./client";

useTestDatabase();

const sample = Prisma.sql`
  SELECT ${7}::int AS n, 9007199254740993::bigint AS big, '{"a":[1,"x",null]}'::json AS j, '[true]'::jsonb AS jb,
         'text' AS t, NULL::timestamptz AS missing, v.tz, v.ts
    FROM (VALUES
      ('2026-11-22 08:12:56.123+00'::timestamptz, '2026-11-22 08:12:56.123'::timestamp),
      ('2026-01-01 00:00:00+00', '2026-01-01 00:00:00'),
      ('1999-12-31 23:59:59.999999+00', '1999-12-31 23:59:59.999999'),
      ('0050-06-01 12:00:00+00', '0050-06-01 12:00:00')
    ) v(tz, ts)`;

describe("queryRows", () => {
  it("returns what $queryRaw returns", async () => {
    const mine = await queryRows<Record<string, unknown>>(sample);
    expect(mine).toEqual(await prisma().$queryRaw(sample));
    expect(mine[0]).toMatchObject({ n: 7, big: BigInt("9007199254740993"), j: { a: [1, "x", null] }, jb: [true] });
    expect((mine[0].tz as Date).toISOString()).toBe("2026-11-22T08:12:56.123Z");
    expect((mine[2].ts as Date).toISOString()).toBe("1999-12-31T23:59:59.999Z");
    expect((mine[3].tz as Date).toISOString()).toBe("0050-06-01T12:00:00.000Z");
  });

  it("reads timestamptz in another session zone as the same instant", async () => {
    const rows = await queryRows<{ tz: Date }>(Prisma.sql`
      SELECT set_config('TimeZone', 'Asia/Kolkata', false) AS zone, '2026-11-22 08:12:56.5+00'::timestamptz AS tz`);
    // The pool's connections are shared: put the zone back before anything else uses this one.
    await queryRows(Prisma.sql`SELECT set_config('TimeZone', 'UTC', false)`);
    expect(rows[0].tz.toISOString()).toBe("2026-11-22T08:12:56.500Z");
  });
});
