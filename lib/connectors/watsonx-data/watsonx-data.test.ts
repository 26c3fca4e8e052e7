// The WatsonxData source against the watsonx.data emulator (tests/emulators/watsonx-data.ts: IBM's
// IAM token API and the v2 "Execute a query" API, as published), whose SQL runs on the real
// PostgreSQL server on 127.0.0.1:5432 (database `test`, the emulator's one catalog).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { startWatsonxDataEmulator } from "@/tests/emulators/watsonx-data";
import { exactJson } from "../shared/values";
import { validateConfiguration } from "../registry";
import { watsonxDataSourceDefinition } from "./definition";
import { readStatement, watsonxDataSource } from "./source";
import { cachedIamTokenCount, iamToken } from "./iam";
import { watsonxSettings } from "./config";
import { MAX_TOKEN_LENGTH, TOKEN_CACHE_LIMIT } from "../shared/bounded-cache";

const PG = {
  host: process.env.PG_TEST_HOST ?? "127.0.0.1",
  port: Number(process.env.PG_TEST_PORT ?? 5432),
  user: "postgres",
  database: "test",
};
const schema = uniqueName("ds_wxd");
const API_KEY = "wxd-Secret-key-7c1e55";
const ENGINE = "presto-01";
const CRN = "crn:v1:bluemix:public:lakehouse:us-south:a/abc123:inst-1::";

let emulator: Awaited<ReturnType<typeof startWatsonxDataEmulator>>;
let admin: pg.Client;

/** The reference's settings, plus our optional addresses pointing at the emulator. */
function config(overrides: Row = {}): Row {
  return {
    api_key: API_KEY,
    region: "us-south",
    engine: "presto",
    engine_id: ENGINE,
    auth_instance_id: CRN,
    database: "test",
    schema,
    config: { timeout: "5" },
    api_url: emulator.apiUrl,
    iam_url: emulator.iamUrl,
    ...overrides,
  };
}

async function collect(iterable: AsyncIterable<Row[]>): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const b of iterable) batches.push(b);
  return batches;
}

beforeAll(async () => {
  admin = new pg.Client(PG);
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(
    `CREATE TABLE ${schema}.orders (id bigint NOT NULL, customer varchar(40), amount numeric(12,2), paid boolean, ratio double precision, placed_at timestamp NOT NULL)`,
  );
  await admin.query(
    `INSERT INTO ${schema}.orders SELECT g, 'c' || g, g * 1.5, g % 2 = 0, g / 4.0, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 1200) g`,
  );
  await admin.query(
    `CREATE TABLE ${schema}.awkward (id integer, big bigint, amount numeric(38,10), label text, f8 double precision)`,
  );
  await admin.query(
    `INSERT INTO ${schema}.awkward VALUES (1, 9223372036854775807, -9999999999999999999999999999.9999999999, E'emoji \\U0001F600 quote'' dq"', 'NaN'), (2, NULL, NULL, NULL, NULL)`,
  );
  emulator = await startWatsonxDataEmulator({
    apiKey: API_KEY,
    engineId: ENGINE,
    instanceCrn: CRN,
    pg: PG,
    rateLimit: { max: 1000, windowMs: 60_000 },
  });
});

afterAll(async () => {
  await emulator?.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

beforeEach(() => {
  emulator.state.delayMs = 0;
  emulator.limiter?.reset();
  if (emulator.limiter) emulator.limiter.max = 1000;
});

describe("settings", () => {
  it("accepts the reference's configuration unchanged; our addresses and row cap are optional", () => {
    const fixture = JSON.parse(
      readFileSync("tests/fixtures/reference-settings/source-WatsonxData.json", "utf8"),
    ) as { configuration: Row };
    expect(validateConfiguration(watsonxDataSourceDefinition, fixture.configuration)).toEqual([]);
    expect(
      validateConfiguration(watsonxDataSourceDefinition, {
        ...fixture.configuration,
        config: { timeout: "30" },
      }),
    ).toEqual([]);
    expect(
      validateConfiguration(watsonxDataSourceDefinition, { ...fixture.configuration, engine: "spark" }),
    ).toEqual([{ path: "engine", message: "must be one of: presto" }]);
    expect(
      validateConfiguration(watsonxDataSourceDefinition, { ...fixture.configuration, region: "evil.com/x" }),
    ).not.toEqual([]);
  });
});

describe("settings bounds", () => {
  it("refuses a config.timeout over an hour with a sentence", () => {
    expect(validateConfiguration(watsonxDataSourceDefinition, config({ config: { timeout: "3600" } }))).toEqual([]);
    expect(validateConfiguration(watsonxDataSourceDefinition, config({ config: { timeout: "3601" } }))).toEqual([
      { path: "config.timeout", message: "config.timeout is 3601 seconds: use at most 3600 (one hour)." },
    ]);
    expect(validateConfiguration(watsonxDataSourceDefinition, config({ config: { timeout: "9".repeat(400) } }))).toHaveLength(1);
    expect(() => watsonxSettings(config({ config: { timeout: "86400" } }))).toThrow(/at most 3600/);
  });
});

describe("a hostile iam_url", () => {
  it("a token longer than MAX_TOKEN_LENGTH is refused, and the tokens kept are bounded", async () => {
    // Just under sendHttp's 1 MB answer cap: without the length check, each new api_key kept ~1 MB.
    let token = "t".repeat(1000 * 1000);
    let issued = 0;
    const hostile = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        issued++;
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ access_token: token === "" ? `tok-${issued}` : token, expiration: 4_000_000_000, expires_in: 1e9 }),
        );
      });
    });
    await new Promise<void>((r) => hostile.listen(0, "127.0.0.1", r));
    const iamUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/identity/token`;
    try {
      const before = cachedIamTokenCount();
      const result = await watsonxDataSource.check(config({ iam_url: iamUrl, api_key: "hostile-1" }));
      expect(result.ok).toBe(false);
      expect(result.details).toMatch(new RegExp(`longer than ${MAX_TOKEN_LENGTH} characters`));
      expect(cachedIamTokenCount()).toBe(before);
      token = "";
      for (let i = 0; i < TOKEN_CACHE_LIMIT + 5; i++) await iamToken(watsonxSettings(config({ iam_url: iamUrl, api_key: `many-${i}` })));
      expect(cachedIamTokenCount()).toBe(TOKEN_CACHE_LIMIT);
      // The newest stays cached; the oldest was dropped and is asked for again.
      const count = issued;
      await iamToken(watsonxSettings(config({ iam_url: iamUrl, api_key: `many-${TOKEN_CACHE_LIMIT + 4}` })));
      expect(issued).toBe(count);
      await iamToken(watsonxSettings(config({ iam_url: iamUrl, api_key: "many-0" })));
      expect(issued).toBe(count + 1);
    } finally {
      await new Promise((r) => hostile.close(r));
    }
  }, 60_000);
});

describe("check", () => {
  it("exchanges the API key for a token once, and reports the schema's tables", async () => {
    const before = emulator.state.tokensIssued;
    const first = await watsonxDataSource.check(config());
    expect(first).toEqual({
      ok: true,
      details: `Connected to watsonx.data engine "${ENGINE}" in us-south: 2 tables in test.${schema}.`,
    });
    await watsonxDataSource.check(config());
    expect(emulator.state.tokensIssued - before).toBeLessThanOrEqual(1);
    const sent = emulator.requests.filter((r) => r.url.startsWith("/lakehouse/")).at(-1)!;
    expect(sent.headers.authinstanceid).toBe(CRN);
    expect(JSON.parse(sent.body)).toMatchObject({
      catalog_name: "test",
      schema_name: schema,
      sql_string: expect.stringContaining("information_schema"),
    });
  });

  it("gets a new token when the API refuses the cached one, and renews one about to expire", async () => {
    await watsonxDataSource.check(config());
    const before = emulator.state.tokensIssued;
    emulator.revokeTokens();
    expect((await watsonxDataSource.check(config())).ok).toBe(true);
    expect(emulator.state.tokensIssued).toBe(before + 1);
    // Tokens within a minute of their expiry are not used: each call here buys a fresh one.
    const shortLived = await startWatsonxDataEmulator({
      apiKey: API_KEY,
      engineId: ENGINE,
      instanceCrn: CRN,
      pg: PG,
      tokenLifetimeSeconds: 30,
    });
    try {
      const settings = config({ api_url: shortLived.apiUrl, iam_url: shortLived.iamUrl });
      await watsonxDataSource.check(settings);
      await watsonxDataSource.check(settings);
      expect(shortLived.state.tokensIssued).toBe(2);
    } finally {
      await shortLived.close();
    }
  });

  it("says what is wrong, in sentences that never hold the API key", async () => {
    const cases: [Row, RegExp][] = [
      [
        { api_key: "wrong-key-123" },
        /^IBM Cloud IAM refused the API key: Provided API key could not be found\. \(BXNIM0415E\)\. Check api_key\.$/,
      ],
      [{ auth_instance_id: "crn:other" }, /^watsonx\.data denied access: .*Check auth_instance_id/],
      [
        { engine_id: "presto-99" },
        /^watsonx\.data found no engine "presto-99" in region us-south.*Check engine_id and region\.$/,
      ],
      [{ schema: "no_such_schema" }, /has no schema "no_such_schema"/],
      [{ database: "other_catalog" }, /could not run the query: Catalog 'other_catalog' does not exist/],
      [{ api_url: "http://169.254.169.254/lakehouse/api/v2" }, /metadata/],
    ];
    for (const [overrides, expected] of cases) {
      const result = await watsonxDataSource.check(config(overrides));
      expect(result.ok, JSON.stringify(overrides)).toBe(false);
      expect(result.details).toMatch(expected);
      expect(result.details).not.toContain(API_KEY);
    }
  });

  it("times out a slow answer with a sentence", async () => {
    emulator.state.delayMs = 2500;
    const result = await watsonxDataSource.check(config({ config: { timeout: "1" } }));
    expect(result).toEqual({
      ok: false,
      details: expect.stringMatching(/did not answer: No response from 127\.0\.0\.1:\d+ within 1 s/),
    });
  });

  it("waits out a 429's Retry-After, and fails with a sentence when it lasts", async () => {
    await watsonxDataSource.check(config());
    emulator.limiter!.max = 0;
    emulator.state.retryAfterSeconds = 1;
    const started = Date.now();
    setTimeout(() => {
      emulator.limiter!.max = 1000;
    }, 1500);
    expect((await watsonxDataSource.check(config())).ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    emulator.limiter!.max = 0;
    const limited = await watsonxDataSource.check(config());
    expect(limited).toEqual({
      ok: false,
      details: expect.stringMatching(/kept answering 429 \(too many requests\): Rate limit exceeded/),
    });
  }, 30_000);
});

describe("discover", () => {
  it("lists the schema's tables from information_schema with their column types", async () => {
    const catalog = await watsonxDataSource.discover(config());
    expect(catalog.streams.map((s) => s.name).sort()).toEqual(["awkward", "orders"]);
    const orders = catalog.streams.find((s) => s.name === "orders")!;
    expect(orders).toMatchObject({ url: `test.${schema}.orders`, action: "fetch" });
    const props = orders.json_schema.properties as Record<string, { type: unknown; $comment: string }>;
    expect(props.id.type).toEqual(["integer", "string"]);
    expect(props.amount).toMatchObject({ type: ["string", "null"], $comment: "numeric" });
  });
});

describe("query preview", () => {
  it("previews at most `limit` rows, refusing anything but one SELECT", async () => {
    const result = await watsonxDataSource.query!(
      config(),
      "SELECT id, customer, amount, paid FROM orders ORDER BY id",
      2,
    );
    expect(result.rows).toEqual([
      { id: 1, customer: "c1", amount: "1.50", paid: false },
      { id: 2, customer: "c2", amount: "3.00", paid: true },
    ]);
    expect(result.columns).toEqual([
      { name: "id", type: "number" },
      { name: "customer", type: "string" },
      { name: "amount", type: "string" },
      { name: "paid", type: "boolean" },
    ]);
    expect(() => watsonxDataSource.checkQuery!("DROP TABLE orders")).toThrow(/must be a SELECT/);
    // Presto's comments do not nest: `/* /* */` ends at the first */, so what follows is code.
    expect(() => watsonxDataSource.checkQuery!("SELECT 1 /* /* */ ) AS q; DROP TABLE orders; SELECT * FROM (SELECT 1 /* */")).toThrow(/single statement/);
    await expect(watsonxDataSource.query!(config(), "SELECT nope FROM orders", 1)).rejects.toThrow(
      /could not run the query: column "nope" does not exist/,
    );
  });

  it("keeps values exact: big integers and decimals as their text, NaN as text", async () => {
    const { rows } = await watsonxDataSource.query!(config(), "SELECT * FROM awkward ORDER BY id", 10);
    expect(exactJson(rows[0])).toBe(
      '{"id":1,"big":"9223372036854775807","amount":"-9999999999999999999999999999.9999999999","label":"emoji 😀 quote\' dq\\"","f8":"NaN"}',
    );
    expect(rows[1]).toEqual({ id: 2, big: null, amount: null, label: null, f8: null });
  });
});

describe("read", () => {
  it("hands the rows on in batches of at most batchSize", async () => {
    const batches = await collect(
      watsonxDataSource.read(config(), { query: "SELECT id, placed_at FROM orders", batchSize: 500 }),
    );
    expect(batches.map((b) => b.length)).toEqual([500, 500, 200]);
    expect(batches[0][0]).toEqual({
      id: expect.any(Number),
      placed_at: expect.stringMatching(/^2024-01-\d\d \d\d:\d\d:00\.000$/),
    });
  });

  it("reads incrementally from the saved cursor, compared in the column's own type", async () => {
    const rows = (
      await collect(
        watsonxDataSource.read(config(), {
          query: "SELECT id, placed_at FROM orders",
          batchSize: 100,
          cursorField: "placed_at",
          cursorValue: "2024-01-01 19:00:00.000",
        }),
      )
    ).flat();
    // Minute 1140 is 19:00 on the first day; rows from it on, cursor included.
    expect(rows.length).toBe(1200 - 1140 + 1);
    expect(rows[0]).toEqual({ id: 1140, placed_at: "2024-01-01 19:00:00.000" });
    expect(emulator.state.queries.at(-1)).toContain(`>= CAST('2024-01-01 19:00:00.000' AS timestamp)`);
  });

  it("refuses a result larger than max_rows with a sentence saying what to do", async () => {
    await expect(
      collect(
        watsonxDataSource.read(config({ max_rows: 1000 }), {
          query: "SELECT id FROM orders",
          batchSize: 100,
        }),
      ),
    ).rejects.toThrow(/more than 1000 rows \(max_rows\).*incremental sync/);
    expect(readStatement("SELECT 1", 10)).toBe("SELECT * FROM (SELECT 1\n) AS subquery LIMIT 11");
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const batch of watsonxDataSource.read(config(), {
          query: "SELECT id FROM orders",
          batchSize: 100,
          signal: controller.signal,
        })) {
          seen.push(batch.length);
          controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(seen).toEqual([100]);
  });
});
