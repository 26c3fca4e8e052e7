// readFingerprinted against the real server: rows parsed on demand must be exactly what read() yields
// (values, key order, JSON text), keys must be today's keys, and fingerprints must follow the rows.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyText, primaryKeyOf } from "@/lib/engine/diff";
import type { FingerprintedBatch, ReadOptions, Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { postgresqlSource } from "./source";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_fp_pg");
// A login whose sessions print timestamptz at +05:30, for values read out of UTC.
const tzRole = uniqueName("ds_fp_tz");

function config(user = "postgres"): Row {
  return {
    host: HOST,
    port: PORT,
    database: "test",
    schema,
    credentials: { auth_type: "username/password", username: user, password: "" },
  };
}

let admin: pg.Client;
const sql = (text: string) => admin.query(text);

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(`CREATE TABLE ${schema}.wide (
    id integer PRIMARY KEY, s int2, i int4, b int8, n numeric, r float4, d float8, flag boolean, t text,
    u uuid, day date, ts timestamp, tstz timestamptz, j json, jb jsonb, ints int[], texts text[],
    stamps timestamptz[], bytes bytea, span interval)`);
  await sql(`INSERT INTO ${schema}.wide VALUES
    (1, 1, 2, 9007199254740993, 1.50, 1.5, 0.1, true, 'plain', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-02-29',
     '2024-05-01 10:00:00.123456', '2024-05-01 10:00:00.123456+00', '{"b": 1, "a": [1, 2]}', '{"b": 1, "a": [1, 2]}',
     '{1,NULL,3}', '{"a b","c\\"d",NULL}', '{"2024-01-01 00:00:00+00","2024-06-01 12:30:00+02"}', '\\x00ff10', '1 day 02:03:04'),
    (2, -32768, -2147483648, -9223372036854775808, -0.000001, 'NaN', 'Infinity', false, 'Grüße, 世界 🚀 "quoted" \\ back',
     '00000000-0000-0000-0000-000000000000', '0044-03-15 BC', '1999-12-31 23:59:59', '1999-12-31 23:59:59.999999-08',
     '[]', '{}', '{}', '{}', '{}', '\\x', '-1 mons'),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, 0, 0, 0, 1e20, '-0', '-1.5e-300', true, '', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'infinity', '-infinity',
     'infinity', 'null', 'null', '{{1,2},{3,4}}', '{""}', '{NULL}', '\\xdeadbeef', '0')`);
  await sql(`CREATE TABLE ${schema}.keyed (
    id integer, name text, uid uuid, at timestamptz, flag boolean, big bigint)`);
  await sql(`INSERT INTO ${schema}.keyed VALUES
    (1, 'one', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-05-01 10:00:00.5+00', true, 1),
    (2, ' two ', '00000000-0000-0000-0000-000000000000', '2024-05-01 10:00:00.123456+02', false, 2),
    (3, '', NULL, '1970-01-01 00:00:00+00', NULL, 3),
    (NULL, 'Grüße', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'infinity', true, 4)`);
  await sql(`CREATE ROLE ${tzRole} LOGIN`);
  await sql(`ALTER ROLE ${tzRole} SET TimeZone = 'Asia/Kolkata'`);
  await sql(`GRANT USAGE ON SCHEMA ${schema} TO ${tzRole}`);
  await sql(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${tzRole}`);
});

afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await sql(`DROP ROLE IF EXISTS ${tzRole}`);
  await admin.end();
});

async function eager(options: ReadOptions, user?: string): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of postgresqlSource.read(config(user), options)) batches.push(batch);
  return batches;
}

async function fingerprinted(
  options: ReadOptions,
  primaryKey: string,
  seed = "seed",
  user?: string,
): Promise<FingerprintedBatch[]> {
  const batches: FingerprintedBatch[] = [];
  for await (const batch of postgresqlSource.readFingerprinted!(config(user), {
    ...options,
    fingerprint: { seed, primaryKey },
  }))
    batches.push(batch);
  return batches;
}

describe("readFingerprinted", () => {
  for (const user of ["postgres", "tz"]) {
    it(`parses rows on demand exactly as read() does (${user === "tz" ? "session at +05:30" : "session in UTC"})`, async () => {
      const login = user === "tz" ? tzRole : undefined;
      const options = { query: `SELECT * FROM ${schema}.wide ORDER BY id`, batchSize: 3 };
      const expected = await eager(options, login);
      const lazy = await fingerprinted(options, "id", "seed", login);
      expect(lazy.map((b) => b.length)).toEqual([3, 1]);
      expect(expected.map((b) => b.length)).toEqual([3, 1]);
      lazy.forEach((batch, b) => {
        for (let i = 0; i < batch.length; i++) {
          const row = batch.row(i);
          expect(row).toEqual(expected[b][i]);
          // Same keys in the same order, so the same record JSON byte for byte.
          expect(JSON.stringify(row)).toBe(JSON.stringify(expected[b][i]));
          expect(batch.keyValues[i]).toBe(expected[b][i].id);
          expect(batch.fingerprints[i]).toMatch(/^[0-9a-f]{32}$/);
        }
      });
      // The values really went through the parsers (not left as the server's text).
      const [first, second] = [expected[0][0], expected[0][1]];
      expect(first).toMatchObject({
        s: 1,
        b: "9007199254740993",
        n: "1.50",
        flag: true,
        tstz: "2024-05-01T10:00:00.123456Z",
        bytes: "\\x00ff10",
      });
      expect(first.j).toEqual({ b: 1, a: [1, 2] });
      expect(first.texts).toEqual(["a b", 'c"d', null]);
      expect(first.stamps).toEqual(["2024-01-01T00:00:00.000Z", "2024-06-01T10:30:00.000Z"]);
      expect(second.r).toBe("NaN");
      expect(second.d).toBe("Infinity");
      expect(second.span).toBe("-1 mons");
      expect(second.t).toBe('Grüße, 世界 🚀 "quoted" \\ back');
      expect(second.tstz).toBe("2000-01-01T07:59:59.999999Z");
      expect(Object.values(expected[0][2]).filter((v) => v === null)).toHaveLength(19);
    });
  }

  it("gives the keys read() gives, for int, text, uuid, timestamptz and boolean keys, in and out of UTC", async () => {
    for (const login of [undefined, tzRole]) {
      const options = { query: `SELECT * FROM ${schema}.keyed ORDER BY big`, batchSize: 10 };
      const [rows] = await eager(options, login);
      for (const column of ["id", "name", "uid", "at", "flag", "big", "missing"]) {
        const [batch] = await fingerprinted(options, column, "seed", login);
        expect(batch.keyValues.map(keyText)).toEqual(rows.map((r) => primaryKeyOf(r, column)));
      }
      const [atKeys] = await fingerprinted(options, "at", "seed", login);
      expect(atKeys.keyValues.map(keyText)).toEqual([
        "2024-05-01T10:00:00.500Z",
        "2024-05-01T08:00:00.123456Z",
        "1970-01-01T00:00:00.000Z",
        "infinity",
      ]);
      const [flagKeys] = await fingerprinted(options, "flag", "seed", login);
      expect(flagKeys.keyValues.map(keyText)).toEqual(["true", "false", null, "true"]);
    }
  });

  it("fingerprints follow the row's content and the seed", async () => {
    const options = {
      query: `SELECT id, name FROM ${schema}.keyed WHERE id IS NOT NULL ORDER BY id`,
      batchSize: 10,
    };
    const [a] = await fingerprinted(options, "id");
    const [again] = await fingerprinted(options, "id");
    const [reseeded] = await fingerprinted(options, "id", "other seed");
    expect(again.fingerprints).toEqual(a.fingerprints);
    expect(new Set(a.fingerprints).size).toBe(3);
    reseeded.fingerprints.forEach((fp, i) => expect(fp).not.toBe(a.fingerprints[i]));
    // The server hashes the seed followed by the row's JSON as it writes it.
    const { rows } = await admin.query<{ fp: string }>(
      `SELECT md5('seed' || row_to_json(x)::text) AS fp FROM (SELECT 1 AS id, 'one'::text AS name) x`,
    );
    expect(a.fingerprints[0]).toBe(rows[0].fp);
    // The same content gives the same fingerprint, whatever expression produced it.
    const [same] = await fingerprinted(
      {
        ...options,
        query: `SELECT id, name || '' AS name FROM ${schema}.keyed WHERE id IS NOT NULL ORDER BY id`,
      },
      "id",
    );
    expect(same.fingerprints).toEqual(a.fingerprints);
  });

  it("marks rows holding a value carried bent before the value model, so their fingerprints change once; the others keep theirs", async () => {
    // id, text, float8, timestamptz, jsonb: row 2 holds Infinity, a microsecond timestamp and a big
    // integer inside JSON; rows 1, 3 and 4 hold only values the engine always carried exactly.
    const columns = "id, t, d, ts, jb";
    const options = { query: `SELECT ${columns} FROM ${schema}.wide ORDER BY id`, batchSize: 10 };
    await sql(`UPDATE ${schema}.wide SET jb = '{"n": 12345678901234567890}' WHERE id = 2`);
    try {
      const [batch] = await fingerprinted(options, "id");
      const { rows } = await admin.query<{ fp: string }>(`SELECT md5('seed' || row_to_json(x)::text) AS fp FROM (SELECT ${columns} FROM ${schema}.wide ORDER BY id) x`);
      expect(batch.fingerprints.map((fp, i) => fp === rows[i].fp)).toEqual([true, false, true, true]);
      for (const [column, bent] of [["d", "'-Infinity'::float8"], ["tstz", "'2024-01-01 00:00:00.0001+00'::timestamptz"], ["jb", `'{"a": 1.50}'::jsonb`], ["span", "'1 day'::interval"]]) {
        const [one] = await fingerprinted({ query: `SELECT 1 AS id, ${bent} AS ${column}`, batchSize: 1 }, "id");
        const plain = await admin.query<{ fp: string }>(`SELECT md5('seed' || row_to_json(x)::text) AS fp FROM (SELECT 1 AS id, ${bent} AS ${column}) x`);
        expect(one.fingerprints[0], column).not.toBe(plain.rows[0].fp);
      }
    } finally {
      await sql(`UPDATE ${schema}.wide SET jb = '{}' WHERE id = 2`);
    }
  });

  it("fingerprints the server's text: a change that parses to the same JSON value still counts", async () => {
    const read = async (json: string) =>
      (
        await fingerprinted(
          { query: `SELECT 1 AS id, '${json}'::json AS j, 1.0::numeric AS n`, batchSize: 1 },
          "id",
        )
      )[0];
    const [compact, spaced] = [await read('{"a":1}'), await read('{"a": 1}')];
    expect(JSON.stringify(spaced.row(0))).toBe(JSON.stringify(compact.row(0)));
    expect(spaced.fingerprints[0]).not.toBe(compact.fingerprints[0]);
  });

  it("reads incrementally from a cursor value like read(), with the seed after the cursor parameter", async () => {
    const options: ReadOptions = {
      query: `SELECT id, tstz AS updated_at, t FROM ${schema}.wide;`,
      batchSize: 1,
      cursorField: "updated_at",
      cursorValue: "2000-01-01T00:00:00Z",
    };
    const expected = (await eager(options)).flat();
    const lazy = await fingerprinted(options, "id");
    // Ordered by the cursor (row 2 is 2000-01-01 07:59:59.999999 UTC); row 3's NULL is never at or after it.
    expect(expected.map((r) => r.id)).toEqual([2, 1, 4]);
    expect(lazy.map((b) => b.row(0))).toEqual(expected);
    expect(lazy[lazy.length - 1].row(0).updated_at).toBe(expected[expected.length - 1].updated_at);
    // Without a saved value the seed is $1.
    const all = await fingerprinted({ ...options, cursorValue: null }, "id");
    expect(all.map((b) => b.row(0).id)).toEqual([2, 1, 4, 3]);
  });

  it("takes a model column named like our own aliases for a plain column", async () => {
    const [batch] = await fingerprinted(
      { query: "SELECT 7 AS fingerprint, 'x' AS subquery, 1 AS id", batchSize: 5 },
      "id",
    );
    expect(batch.row(0)).toEqual({ fingerprint: 7, subquery: "x", id: 1 });
    expect(batch.fingerprints[0]).toMatch(/^[0-9a-f]{32}$/);
  });

  it("with a repeated column name, the last one wins in the row and the key, as in read()", async () => {
    const options = { query: "SELECT 1 AS id, 'x' AS name, 2 AS id", batchSize: 5 };
    const [[row]] = await eager(options);
    const [batch] = await fingerprinted(options, "id");
    expect(batch.row(0)).toEqual(row);
    expect(JSON.stringify(batch.row(0))).toBe(JSON.stringify(row));
    expect(batch.keyValues).toEqual([2]);
  });
});
