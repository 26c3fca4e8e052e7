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

  it("reads timestamps as the ISO text of the same instants with timestamps: iso, in any session zone", async () => {
    const dates = await queryRows<{ tz: Date | null; ts: Date | null }>(sample);
    const texts = await queryRows<{ tz: string | null; ts: string | null }>(sample, { timestamps: "iso" });
    expect(texts).toEqual(dates.map((r) => ({ ...r, tz: r.tz?.toISOString() ?? null, ts: r.ts?.toISOString() ?? null })));
    expect(texts.map((r) => r.tz)).toEqual(["2026-11-22T08:12:56.123Z", "2026-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z", "0050-06-01T12:00:00.000Z"]);
    // PostgreSQL drops a fraction's trailing zeros; the ISO text has three digits.
    const fractions = await queryRows<{ tz: string; ts: string }>(
      Prisma.sql`SELECT v::timestamptz AS tz, v::timestamp AS ts FROM unnest(${["2026-03-04 05:06:07.5", "2026-03-04 05:06:07.12", "2026-03-04 05:06:07.1204"]}::text[]) v`,
      { timestamps: "iso" },
    );
    expect(fractions.map((r) => [r.tz, r.ts])).toEqual([
      ["2026-03-04T05:06:07.500Z", "2026-03-04T05:06:07.500Z"],
      ["2026-03-04T05:06:07.120Z", "2026-03-04T05:06:07.120Z"],
      ["2026-03-04T05:06:07.120Z", "2026-03-04T05:06:07.120Z"],
    ]);
    const [other] = await queryRows<{ tz: string }>(
      Prisma.sql`SELECT set_config('TimeZone', 'Asia/Kolkata', false) AS zone, '2026-11-22 08:12:56.5+00'::timestamptz AS tz`,
      { timestamps: "iso" },
    );
    await queryRows(Prisma.sql`SELECT set_config('TimeZone', 'UTC', false)`);
    expect(other.tz).toBe("2026-11-22T08:12:56.500Z");
  });

  it("prepares each text once per connection and runs it again with other values", async () => {
    const query = (n: number) => Prisma.sql`SELECT ${n}::int + 1 AS n, 'queryRows prepared test' AS tag`;
    for (let n = 0; n < 8; n++) expect(await queryRows(query(n))).toEqual([{ n: n + 1, tag: "queryRows prepared test" }]);
    const [{ count }] = await queryRows<{ count: number }>(
      Prisma.sql`SELECT count(*)::int AS count FROM pg_prepared_statements WHERE statement LIKE '%queryRows prepared test%' AND statement NOT LIKE '%pg_prepared_statements%'`,
    );
    // One after another, the queries take the connection the last one gave back (pg-pool reuses the
    // most recently released), so the statement was prepared there, once.
    expect(count).toBe(1);
  });
});
