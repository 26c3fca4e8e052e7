// The ClickHouse source against a real server: Debian's clickhouse-server (18.16 here), started on
// loopback ports in a temporary directory by tests/support/clickhouse-server.ts. Against a hostile
// server (the url is the tenant's): clickhouse-hostile.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { closedPort } from "@/tests/support/connectors";
import { startClickhouse, type ClickhouseServer } from "@/tests/support/clickhouse-server";
import { exactJson } from "../shared/values";
import { clickhouseEndpoint } from "./config";
import { clickhouseSourceDefinition } from "./definition";
import { clickhouseSource as source } from "./source";
import { clickhouseTextRows } from "./text-rows";
import { MAX_LINE_BYTES } from "./tsv";
import { validateConfiguration } from "../registry";

let server: ClickhouseServer;
const DB = "ds_src";
const EVENTS = 50_000;

function config(overrides: Row = {}): Row {
  return { url: server.url, username: server.username, password: server.password, database: DB, connect_timeout: 5, ...overrides };
}

async function readAll(options: Partial<Parameters<typeof source.read>[1]> & { query: string }, cfg = config()): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of source.read(cfg, { batchSize: 1000, ...options })) batches.push(batch);
  return batches;
}

async function running(): Promise<number> {
  return Number((await server.exec("SELECT count() FROM system.processes WHERE query NOT LIKE '%system.processes%'")).trim());
}

async function until(condition: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

beforeAll(async () => {
  server = await startClickhouse();
  await server.exec(`CREATE DATABASE ${DB}`);
  await server.exec(`CREATE TABLE ${DB}.people (id UInt32, name String, email Nullable(String), score Decimal(10, 2), big Int64,
      born Date, seen_at DateTime, tags Array(String)) ENGINE = MergeTree ORDER BY id`);
  await server.exec(`INSERT INTO ${DB}.people VALUES
      (1, 'Ada', 'ada@example.com', 12.50, 9007199254740993, '1990-01-02', '2024-05-01 08:00:00', ['a', 'b']),
      (2, 'Bob', NULL, -1.00, -5, '2000-02-29', '2024-05-02 09:30:00', [])`);
  await server.exec(`CREATE TABLE ${DB}.events (id UInt64, payload String, updated_at DateTime) ENGINE = MergeTree ORDER BY id`);
  await server.exec(
    `INSERT INTO ${DB}.events SELECT number + 1, concat('${"x".repeat(2000)}', toString(number + 1)), toDateTime('2024-01-01 00:00:00') + number FROM system.numbers LIMIT ${EVENTS}`,
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("settings", () => {
  it("accepts the reference's configuration unchanged, and refuses a url with a credential", () => {
    const reference = { url: "tu61szglca.us-west-2.aws.clickhouse.cloud", username: "default", password: "pw", database: "default" };
    expect(validateConfiguration(clickhouseSourceDefinition, reference)).toEqual([]);
    expect(clickhouseEndpoint(reference.url).toString()).toBe("https://tu61szglca.us-west-2.aws.clickhouse.cloud:8443/");
    expect(clickhouseEndpoint("127.0.0.1").toString()).toBe("http://127.0.0.1:8123/");
    expect(clickhouseEndpoint("http://127.0.0.1:8123").toString()).toBe("http://127.0.0.1:8123/");
    const problems = validateConfiguration(clickhouseSourceDefinition, { ...reference, url: "https://default:pw@host:8443" });
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe("url");
    expect(validateConfiguration(clickhouseSourceDefinition, { ...reference, url: "tcp://host:9000" })[0].message).toMatch(/HTTP interface/);
    expect(validateConfiguration(clickhouseSourceDefinition, { url: "h" }).map((p) => p.path).sort()).toEqual(["database", "password", "username"]);
  });
});

describe("check", () => {
  it("connects and names the version and database", async () => {
    const result = await source.check(config());
    expect(result).toMatchObject({ ok: true });
    expect(result.details).toMatch(/^Connected to ClickHouse 18\.16|^Connected to ClickHouse \d+/);
    expect(result.details).toContain(`"${DB}"`);
  });

  it("says what is wrong, never echoing the password", async () => {
    const wrong = await source.check(config({ password: "not-the-password-xyz" }));
    expect(wrong).toEqual({ ok: false, details: 'ClickHouse refused the username or password of "default". Check them.' });
    const missing = await source.check(config({ database: "nope" }));
    expect(missing.ok).toBe(false);
    expect(missing.details).toMatch(/database "nope" does not exist/i);
    const refused = await source.check(config({ url: `http://127.0.0.1:${await closedPort()}` }));
    expect(refused.ok).toBe(false);
    expect(refused.details).toMatch(/connection refused/);
    for (const r of [wrong, missing, refused]) expect(r.details).not.toContain(server.password);
    const secret = "s3cr3t-in-the-answer";
    const echoed = await source.check(config({ username: secret, password: secret }));
    expect(echoed.ok).toBe(false);
    expect(echoed.details).not.toContain(secret);
  });

  it("works with a user whose profile is read-only (no settings sent)", async () => {
    expect(await source.check(config({ username: server.readonlyUser }))).toMatchObject({ ok: true });
    const batches = await readAll({ query: "SELECT id FROM people ORDER BY id" }, config({ username: server.readonlyUser }));
    expect(batches.flat()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("goes through the outbound guard", async () => {
    const previous = process.env.OUTBOUND_ALLOW_PRIVATE;
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    try {
      for (const url of [server.url, `http://localhost:${server.httpPort}`]) {
        const result = await source.check(config({ url }));
        expect(result.ok, url).toBe(false);
        expect(result.details, url).toMatch(/not allowed/);
      }
    } finally {
      process.env.OUTBOUND_ALLOW_PRIVATE = previous;
    }
  });
});

describe("discover", () => {
  it("lists the database's tables with their ClickHouse types as JSON Schema", async () => {
    const catalog = await source.discover(config());
    const people = catalog.streams.find((s) => s.name === "people");
    expect(people).toMatchObject({ url: `${DB}.people`, action: "fetch" });
    expect(people?.json_schema).toEqual({
      type: "object",
      properties: {
        id: { type: "integer", $comment: "UInt32" },
        name: { type: "string", $comment: "String" },
        email: { type: ["string", "null"], $comment: "Nullable(String)" },
        score: { type: "string", $comment: "Decimal(10, 2)" },
        big: { type: ["integer", "string"], $comment: "Int64" },
        born: { type: "string", format: "date", $comment: "Date" },
        seen_at: { type: "string", format: "date-time", $comment: "DateTime" },
        tags: { type: "array", items: { type: "string" }, $comment: "Array(String)" },
      },
    });
    expect(catalog.streams.map((s) => s.name).sort()).toEqual(["events", "people"]);
  });
});

describe("query (preview)", () => {
  it("returns at most `limit` rows with the value model's values and the columns' types", async () => {
    const result = await source.query!(config(), "SELECT id, name, email, score, big, born, seen_at, tags FROM people ORDER BY id;", 1);
    expect(result.columns.map((c) => `${c.name}:${c.type}`)).toEqual([
      "id:UInt32",
      "name:String",
      "email:Nullable(String)",
      "score:Decimal(10, 2)",
      "big:Int64",
      "born:Date",
      "seen_at:DateTime",
      "tags:Array(String)",
    ]);
    expect(result.rows).toEqual([
      { id: 1, name: "Ada", email: "ada@example.com", score: "12.50", big: "9007199254740993", born: "1990-01-02", seen_at: "2024-05-01T08:00:00.000Z", tags: ["a", "b"] },
    ]);
  });

  it("refuses what is not one read-only SELECT, before sending it", async () => {
    for (const [sql, sentence] of [
      [`INSERT INTO people (id) VALUES (3)`, /must be a SELECT/],
      ["SELECT 1; SELECT 2", /single statement/],
      ["SELECT 1; DROP TABLE people", /single statement/],
      ["SELECT * FROM file('x.csv', 'CSV', 'a String')", /must not call file\(\)/],
      ["SELECT * FROM url('http://169.254.169.254/', 'CSV', 'a String')", /must not call url\(\)/],
      ["SELECT * FROM remote('127.0.0.1', system.one)", /must not call remote\(\)/],
      // Newer table functions of the same families (a readonly=2 profile may call them).
      ["SELECT * FROM icebergS3('http://169.254.169.254/t')", /must not call icebergs3\(\)/],
      ["SELECT * FROM deltaLakeLocal('/var/lib/clickhouse/t')", /must not call deltalakelocal\(\)/],
      ["SELECT * FROM arrowFlight('127.0.0.1:8815', 'd')", /must not call arrowflight\(\)/],
      ["SELECT * FROM ytsaurus('http://127.0.0.1', '//t', 'token')", /must not call ytsaurus\(\)/],
      ["SELECT 1 # hidden", /must not use "#"/],
      ["SELECT 1 /* /* */ */", /nest comments/],
      ["SELECT * FROM people LIMIT 5", /must not end with LIMIT/],
    ] as const) {
      expect(() => source.checkQuery!(sql), sql).toThrow(sentence);
      await expect(source.query!(config(), sql, 5), sql).rejects.toThrow(sentence);
    }
    expect(() => source.checkQuery!("SELECT 'a; b # c' AS `x;` -- ; trailing")).not.toThrow();
    // Table functions are refused by the server too (readonly=1), as is any write the check missed.
    await expect(source.query!(config(), "SELECT * FROM numbers(3)", 5)).rejects.toThrow(/readonly|models only read/);
    expect(Number((await server.exec(`SELECT count() FROM ${DB}.people`)).trim())).toBe(2);
  });

  it("names the server's sentence for a bad query", async () => {
    await expect(source.query!(config(), "SELECT nope FROM people", 5)).rejects.toThrow(/ClickHouse error 47: .*nope/);
  });
});

describe("read", () => {
  it(`streams ${EVENTS} rows in batches, holding about one batch`, async () => {
    let rows = 0;
    let batches = 0;
    let maxBatch = 0;
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let lastId = 0;
    for await (const batch of source.read(config(), { query: "SELECT id, payload, updated_at FROM events ORDER BY id", batchSize: 1000 })) {
      batches++;
      rows += batch.length;
      maxBatch = Math.max(maxBatch, batch.length);
      expect(batch[0].id).toBe(lastId + 1);
      lastId = Number(batch[batch.length - 1].id);
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect(rows).toBe(EVENTS);
    expect(batches).toBe(EVENTS / 1000);
    expect(maxBatch).toBe(1000);
    // The whole result is over 100 MB of text; one batch is about 4 MB of strings.
    expect(peak).toBeLessThan(80 * 1024 * 1024);
  });

  it("reads incrementally from a cursor, in the cursor's order", async () => {
    const rows = (
      await readAll({ query: "SELECT id, updated_at FROM events", cursorField: "updated_at", cursorValue: "2024-01-01T13:53:10.000Z", batchSize: 5000 })
    ).flat();
    expect(rows).toHaveLength(EVENTS - 49_990);
    expect(rows[0]).toEqual({ id: 49_991, updated_at: "2024-01-01T13:53:10.000Z" });
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => 49_991 + i));
    const byId = (await readAll({ query: "SELECT id FROM events", cursorField: "id", cursorValue: "49999" })).flat();
    expect(byId).toEqual([{ id: 49_999 }, { id: 50_000 }]);
    await expect(readAll({ query: "SELECT id FROM events", cursorField: "nope", cursorValue: "1" })).rejects.toThrow(/"nope" is not a column/);
  });

  it("cancel aborts the request and stops the query on the server", async () => {
    const controller = new AbortController();
    const reading = (async () => {
      let n = 0;
      // Never ends on its own: every number, slowly filtered.
      for await (const batch of source.read(config({ query_timeout: 600 }), {
        query: "SELECT number FROM system.numbers WHERE sleepEachRow(0) = 0",
        batchSize: 100,
        signal: controller.signal,
      })) {
        n += batch.length;
        if (n >= 1000) controller.abort(new Error("The run was cancelled."));
      }
    })();
    await expect(reading).rejects.toThrow(/cancel/i);
    expect(await until(async () => (await running()) === 0)).toBe(true);
  });

  it("an abandoned read (the consumer stops early) stops the query too", async () => {
    for await (const batch of source.read(config(), { query: "SELECT number FROM system.numbers", batchSize: 10 })) {
      expect(batch).toHaveLength(10);
      break;
    }
    expect(await until(async () => (await running()) === 0)).toBe(true);
  });

  it("the query timeout stops a query that runs too long, with a sentence", async () => {
    const started = Date.now();
    await expect(readAll({ query: "SELECT count() FROM system.numbers" }, config({ query_timeout: 1 }))).rejects.toThrow(
      /stopped after the 1 s query timeout|within the 1 s query timeout|for 1 s/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await until(async () => (await running()) === 0)).toBe(true);
    // Stopped after rows were sent: ClickHouse writes its error after the last row (status 200); a
    // one-column row must not be taken for it, nor it for a row.
    let rows = 0;
    const midway = (async () => {
      for await (const batch of source.read(config({ query_timeout: 1 }), { query: "SELECT toString(number) AS n FROM system.numbers", batchSize: 5000 })) rows += batch.length;
    })();
    await expect(midway).rejects.toThrow(/stopped the query midway: Code: 159/);
    expect(rows).toBeGreaterThan(0);
  });

  it("errors never carry the password", async () => {
    const error = await readAll({ query: "SELECT 1" }, config({ password: "wrong-password-abc" })).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/refused the username or password/);
    expect((error as Error).message).not.toContain("wrong-password-abc");
  });
});

describe("bounded row count", () => {
  const count = (options: { query: string; cursorField?: string; cursorValue?: string; limit?: number; timeoutMs?: number }) =>
    source.countRows!(config(), { batchSize: 1000, limit: 1_000_000, timeoutMs: 5_000, ...options });

  it('is exact below the bound, "more than N" past it, narrowed by the cursor as the read is', async () => {
    expect(await count({ query: "SELECT id FROM events" })).toEqual({ rows: EVENTS, more: false });
    expect(await count({ query: "SELECT id FROM events", limit: 1_000 })).toEqual({ rows: 1_000, more: true });
    expect(await count({ query: "SELECT id FROM events", cursorField: "id", cursorValue: "49991" })).toEqual({ rows: 10, more: false });
    await expect(count({ query: "SELECT id FROM events", cursorField: "nope", cursorValue: "1" })).rejects.toThrow(/"nope" is not a column/);
  });

  it("is unknown (null) when its time box runs out, and the query is stopped on the server", async () => {
    // Endless: one row in every billion, from an endless table.
    expect(await count({ query: "SELECT number FROM system.numbers WHERE number % 1000000007 = 1", timeoutMs: 300 })).toBeNull();
    expect(await until(async () => (await running()) === 0)).toBe(true);
  });

  it("a canceled count is stopped on the server too, not only the request", async () => {
    // A long time box: only the cancel can stop it within the wait below.
    const controller = new AbortController();
    const counting = source.countRows!(config({ query_timeout: 600 }), {
      query: "SELECT number FROM system.numbers WHERE number % 1000000007 = 1",
      batchSize: 1000,
      limit: 1_000_000,
      timeoutMs: 600_000,
      signal: controller.signal,
    });
    expect(await until(async () => (await running()) > 0)).toBe(true);
    controller.abort(new Error("The run was cancelled."));
    await expect(counting).rejects.toThrow(/cancel/i);
    expect(await until(async () => (await running()) === 0)).toBe(true);
  });

  it("refuses what the read refuses before it reaches the server", async () => {
    await expect(count({ query: "SELECT 1; DROP TABLE events" })).rejects.toThrow(/single statement/);
    await expect(count({ query: "SELECT * FROM url('http://127.0.0.1:1/', CSV, 'a String')" })).rejects.toThrow(/url\(\)/);
  });
});

describe("values", () => {
  it("travel by the value model: exact integers and decimals, NaN and infinities as text, UTC timestamps, arrays, bytes", async () => {
    const query = `SELECT
        toUInt64('18446744073709551615') AS u64, toInt64('-9223372036854775808') AS i64, toUInt64(42) AS small64,
        toDecimal128('-123456789012345678901234567.123456789', 9) AS dec,
        nan AS f_nan, inf AS f_inf, -inf AS f_ninf, toFloat32(0.1) AS f32, CAST(NULL AS Nullable(Float64)) AS f_null,
        toDate('2000-02-29') AS d, toDate(0) AS d_zero, toDateTime('2024-05-01 10:00:00', 'Asia/Tokyo') AS tokyo,
        toDateTime('2024-05-01 10:00:00') AS utc, [toDateTime('2024-05-01 10:00:00', 'Europe/Berlin')] AS times,
        toUUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') AS uid, CAST('b' AS Enum8('a' = 1, 'b' = 2)) AS e,
        'emoji \\xF0\\x9F\\x98\\x80 tab\\t nl\\n back\\\\ quote\\' dq"' AS s, unhex('00FF5C0A') AS bin, toFixedString('ab', 3) AS fixed,
        ['a,b', 'c\\'d', NULL, 'NULL', '', 'x\\\\y'] AS texts, [[1, 2], []] AS nested, [nan, -inf] AS floats,
        ('x', 1, [toDate('2024-01-02')]) AS tup, CAST(NULL AS Nullable(String)) AS n
      FROM system.one`;
    const [[row]] = await readAll({ query });
    expect(JSON.parse(exactJson(row))).toEqual({
      u64: "18446744073709551615",
      i64: "-9223372036854775808",
      small64: 42,
      dec: "-123456789012345678901234567.123456789",
      f_nan: "NaN",
      f_inf: "Infinity",
      f_ninf: "-Infinity",
      f32: 0.1,
      f_null: null,
      d: "2000-02-29",
      d_zero: "1970-01-01",
      tokyo: "2024-05-01T01:00:00.000Z",
      utc: "2024-05-01T10:00:00.000Z",
      times: ["2024-05-01T08:00:00.000Z"],
      uid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      e: "b",
      s: `emoji \u{1F600} tab\t nl\n back\\ quote' dq"`,
      bin: "\\x00ff5c0a",
      fixed: "\\x616200",
      texts: ["a,b", "c'd", null, "NULL", "", "x\\y"],
      nested: [[1, 2], []],
      floats: ["NaN", "-Infinity"],
      tup: ["x", 1, ["2024-01-02"]],
      n: null,
    });
  });
});

describe("pass-through lines", () => {
  it("DateTimes the server prints as ISO text decode to the JSON path's values, a DateTime cursor included", async () => {
    await server.exec(`CREATE TABLE ${DB}.times (id UInt32, at DateTime, tokyo DateTime('Asia/Tokyo'), maybe Nullable(DateTime)) ENGINE = MergeTree ORDER BY id`);
    await server.exec(`INSERT INTO ${DB}.times VALUES (1, '2024-05-01 10:00:00', toDateTime('2024-05-01 10:00:00', 'Asia/Tokyo'), NULL),
        (2, toDateTime(0), toDateTime(0), toDateTime(4294967295)), (3, '2024-05-01 10:00:01', toDateTime(1), '2000-02-29 23:59:59')`);
    const options = { query: `SELECT id, at, tokyo, maybe FROM ${DB}.times`, batchSize: 1000, cursorField: "at", cursorValue: "2024-05-01T10:00:00.000Z" };
    const columns = await clickhouseTextRows.columns(config(), options);
    const lines: string[] = [];
    for await (const batch of clickhouseTextRows.read(config(), options)) lines.push(...batch);
    const rows = (await readAll(options)).flat();
    expect(lines.map((line) => clickhouseTextRows.decode(line, columns!))).toEqual(rows);
    expect(rows).toEqual([
      { id: 1, at: "2024-05-01T10:00:00.000Z", tokyo: "2024-05-01T01:00:00.000Z", maybe: null },
      { id: 3, at: "2024-05-01T10:00:01.000Z", tokyo: "1970-01-01T00:00:01.000Z", maybe: "2000-02-29T23:59:59.000Z" },
    ]);
    // The whole table: the zero DateTime (18.x prints it as zeros, the JSON path reads the epoch) and the
    // last second of the range (18.x wraps it, in both its outputs alike).
    const all = { ...options, cursorField: undefined, cursorValue: undefined };
    const allLines: string[] = [];
    for await (const batch of clickhouseTextRows.read(config(), all)) allLines.push(...batch);
    const byId = (a: Row, b: Row) => Number(a.id) - Number(b.id);
    expect(allLines.map((line) => clickhouseTextRows.decode(line, columns!)).sort(byId)).toEqual((await readAll(all)).flat().sort(byId));
    expect(allLines.find((line) => line.startsWith("2\t"))).toMatch(/^2\t1970-01-01T00:00:00\.000Z\t1970-01-01T00:00:00\.000Z\t/);
  });
});

describe("text batches", () => {
  it("end at batchSize lines or at about batchChars bytes of the answer, whichever comes first", async () => {
    // 18.16 has no repeat(): lines of 2 to 102 bytes.
    await server.exec(`CREATE TABLE ${DB}.padded (id UInt32, pad String) ENGINE = MergeTree ORDER BY id`);
    await server.exec(`INSERT INTO ${DB}.padded SELECT number, arrayStringConcat(arrayMap(i -> 'x', range(number % 100))) FROM system.numbers LIMIT 300`);
    const query = `SELECT id, pad FROM ${DB}.padded ORDER BY id`;
    const sizes = async (most: { batchSize: number; batchChars?: number }) => {
      const batches: string[][] = [];
      for await (const batch of clickhouseTextRows.read(config(), { query, ...most })) batches.push([...batch]);
      return batches;
    };
    const whole = (await sizes({ batchSize: 1000 })).flat();
    expect(whole).toHaveLength(300);
    const answerBytes = whole.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
    const byText = await sizes({ batchSize: 1000, batchChars: 2000 });
    expect(byText.flat()).toEqual(whole);
    // The answer's bytes are shared among its lines a block at a time, so a batch holds about 2000.
    expect(byText.length).toBeGreaterThanOrEqual(Math.floor(answerBytes / 2000) - 1);
    expect(byText.length).toBeLessThanOrEqual(Math.ceil(answerBytes / 2000) + 1);
    const byCount = await sizes({ batchSize: 40, batchChars: 1_000_000 });
    expect(byCount.map((b) => b.length)).toEqual([...Array<number>(7).fill(40), 20]);
  });
});

describe("long rows", () => {
  // The tenant's own query can make a huge value (18.16 has no repeat(): thousands of 1000-byte pieces).
  const longValue = (thousands: number) => `SELECT arrayStringConcat(arrayMap(i -> '${"x".repeat(1000)}', range(${thousands}))) AS s`;
  it(`a row longer than ${MAX_LINE_BYTES / 1024 / 1024} MB fails with a sentence, without stalling the process`, async () => {
    let worst = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      worst = Math.max(worst, Date.now() - last);
      last = Date.now();
    }, 20);
    try {
      await expect(source.query!(config(), longValue(100_000), 1)).rejects.toThrow(/longer than 64 MB, the most one row may hold/);
    } finally {
      clearInterval(ticker);
    }
    expect(worst).toBeLessThan(1000);
    expect(await until(async () => (await running()) === 0)).toBe(true);
    // Under the limit, a long value still arrives whole.
    const [row] = (await source.query!(config(), longValue(20_000), 1)).rows;
    expect((row.s as string).length).toBe(20_000_000);
  }, 60_000);
});
