// Per-record failures and a 429 during the read, for the warehouse sources, through the engine into
// PostgreSQL: each source serves 1,200 rows of which one (id 7) has a negative amount, and the
// destination table's CHECK constraint refuses it. The run succeeds with exactly that record failed
// (its error naming the constraint) and every other row delivered; once the row is fixed at the
// source, the next run sends only it; an unchanged third run sends nothing. The HTTP-API sources'
// emulators (tests/emulators: the vendors' wire formats over our real PostgreSQL) answer one result
// page (the poll for watsonx.data, whose API answers a whole result at once) with 429 and
// Retry-After, and the run still delivers every row. Redshift runs against the real PostgreSQL (as
// lib/connectors/redshift's tests do), ClickHouse against a private real server (as
// clickhouse-fidelity.test.ts does).
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "@/lib/connectors/types";
import { startAthenaEmulator } from "@/tests/emulators/athena";
import { startBigQueryEmulator } from "@/tests/emulators/bigquery";
import { startDatabricksEmulator } from "@/tests/emulators/databricks";
import { startSnowflakeEmulator } from "@/tests/emulators/snowflake";
import { startWatsonxDataEmulator } from "@/tests/emulators/watsonx-data";
import { startClickhouse, type ClickhouseServer } from "@/tests/support/clickhouse-server";
import type { ReceivedRequest } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

const ROWS = 1200;
const BAD_ID = "7";
const COLUMNS = ["id", "amount", "label"];

/** How a test makes one read request of a source's emulator answer 429, and sees it retried. */
interface Throttle {
  requests: ReceivedRequest[];
  /** Makes the emulator answer 429 to one request of the coming read; calls `armed` when it is set. */
  arm(armed: () => void): void;
  /** How many 429s the emulator has answered. */
  throttled(): number;
  /** A request that fetches the read's rows (a result page, chunk or partition; watsonx.data's query). */
  isRead(r: ReceivedRequest): boolean;
}

interface SourceCase {
  connectorName: string;
  /** Source table src_<key> (in PostgreSQL behind the emulators), destination table to_<key>. */
  key: string;
  config(): Row;
  /** Sets the refused row's amount at the source. */
  setBadAmount(amount: number): Promise<void>;
  throttle?: Throttle;
}

/**
 * Calls `armed` as soon as the emulator's `counter` of served result pages reaches `after`: arming
 * its throttle then makes the following page's request answer 429, in the middle of the read.
 */
function whenCounted<K extends string>(control: Record<K, number>, counter: K, after: number, armed: () => void): void {
  let value = control[counter];
  Object.defineProperty(control, counter, {
    configurable: true,
    enumerable: true,
    get: () => value,
    set: (next: number) => {
      value = next;
      if (next === after) armed();
    },
  });
}

const sameRequest = (a: ReceivedRequest, b: ReceivedRequest) => a.method === b.method && a.url === b.url && a.body === b.body && a.headers["x-amz-target"] === b.headers["x-amz-target"];

/** The PostgreSQL connection a URL names, as separate settings. */
function pgParts(url: string) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), database: u.pathname.slice(1) };
}

async function expectOneRefusedRowThenOnlyItsFix(db: string, c: SourceCase): Promise<void> {
  const source = `src_${c.key}`;
  const target = `to_${c.key}`;
  const constraint = `${target}_amount_not_negative`;
  await sql(db, `CREATE TABLE ${target} (id integer PRIMARY KEY, amount integer CONSTRAINT ${constraint} CHECK (amount >= 0), label text)`);
  const f = await createFixture({
    sourceUrl: db,
    source: { connectorName: c.connectorName, config: c.config() },
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(db), catalog: catalogOf(tableStream(target)) },
    query: `SELECT id, amount, label FROM ${source}`,
    sync: { configuration: COLUMNS.map((x) => ({ from: x, to: x, mapping_type: "standard" })) },
  });
  const run = async () => {
    const created = await triggerSync(f.workspaceId, f.syncId);
    const result = await executeRun(created.id);
    return { result, run: await reloadRun(created.id), records: await runRecords(created.id) };
  };

  let armedAt = -1;
  c.throttle?.arm(() => {
    armedAt = c.throttle!.requests.length;
  });
  const first = await run();
  expect(first.result, c.connectorName).toBe("success");
  expect(first.run).toMatchObject({ status: "success", totalRows: ROWS, successfulRows: ROWS - 1, failedRows: 1 });
  const failed = first.records.filter((r) => r.status === "failed");
  expect(failed.map((r) => r.primaryKey)).toEqual([BAD_ID]);
  expect(failed[0].error).toContain(constraint);
  const delivered = await sql<{ n: number; bad: number }>(db, `SELECT count(*)::int AS n, count(*) FILTER (WHERE id = ${BAD_ID})::int AS bad FROM ${target}`);
  expect(delivered[0]).toEqual({ n: ROWS - 1, bad: 0 });
  expect(await sql(db, `SELECT id, amount, label FROM ${target} WHERE id IN (1, ${ROWS}) ORDER BY id`)).toEqual([
    { id: 1, amount: 1, label: "payment 1" },
    { id: ROWS, amount: ROWS, label: `payment ${ROWS}` },
  ]);
  if (c.throttle) {
    // One read request was answered 429 in the middle of the read, and sent again after it.
    const { requests, isRead } = c.throttle;
    expect(c.throttle.throttled()).toBe(1);
    expect(armedAt, "the throttle was armed").toBeGreaterThanOrEqual(0);
    const throttledAt = requests.findIndex((r, i) => i >= armedAt && isRead(r));
    expect(throttledAt).toBeGreaterThanOrEqual(armedAt);
    expect(requests.slice(throttledAt + 1).some((r) => sameRequest(r, requests[throttledAt]))).toBe(true);
  }

  await c.setBadAmount(70);
  const second = await run();
  expect(second.run).toMatchObject({ status: "success", totalRows: 1, successfulRows: 1, failedRows: 0, skippedRows: ROWS - 1 });
  expect(second.records.map((r) => [r.primaryKey, r.status])).toEqual([[BAD_ID, "success"]]);
  expect(await sql(db, `SELECT amount FROM ${target} WHERE id = ${BAD_ID}`)).toEqual([{ amount: 70 }]);

  const third = await run();
  expect(third.run).toMatchObject({ status: "success", totalRows: 0, skippedRows: ROWS });
  expect(third.records).toEqual([]);
}

/** src_<key> in PostgreSQL: ids 1…ROWS, amount = id except the refused row's, which is negative. */
async function createSourceTable(db: string, key: string): Promise<void> {
  await sql(db, `CREATE TABLE src_${key} (id integer PRIMARY KEY, amount integer NOT NULL, label text NOT NULL)`);
  await sql(db, `INSERT INTO src_${key} SELECT g, CASE WHEN g = ${BAD_ID} THEN -g ELSE g END, 'payment ' || g FROM generate_series(1, ${ROWS}) g`);
}

describe("warehouse sources to PostgreSQL: a refused row fails alone, and a 429 mid-read is waited out", () => {
  let db: { url: string; drop(): Promise<void> };
  let snowflake: Awaited<ReturnType<typeof startSnowflakeEmulator>>;
  let databricks: Awaited<ReturnType<typeof startDatabricksEmulator>>;
  let bigquery: Awaited<ReturnType<typeof startBigQueryEmulator>>;
  let athena: Awaited<ReturnType<typeof startAthenaEmulator>>;
  let watsonx: Awaited<ReturnType<typeof startWatsonxDataEmulator>>;
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const BQ_EMAIL = "datasync@acme.iam.gserviceaccount.com";

  beforeAll(async () => {
    db = await createScratchDatabase("ds_wh_rf");
    for (const key of ["snowflake", "databricks", "bigquery", "athena", "watsonx", "redshift"]) await createSourceTable(db.url, key);
    // Result pages of at most 500 rows (Athena's are 1,000): three pages (two for Athena) per read.
    snowflake = await startSnowflakeEmulator({ databaseUrl: db.url, token: "rf-snowflake-token", partitionRows: 500 });
    databricks = await startDatabricksEmulator({ databaseUrl: db.url, token: "rf-databricks-token", warehouseId: "rf0001", chunkRows: 500 });
    bigquery = await startBigQueryEmulator({
      pgUrl: db.url,
      projectId: "acme-analytics",
      clientEmail: BQ_EMAIL,
      publicKey: keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
      datasets: ["public"],
      maxPageRows: 500,
    });
    athena = await startAthenaEmulator({ pgUrl: db.url, accessKeyId: "AKIDEXAMPLE", region: "us-east-1", workgroup: "primary", catalog: "AwsDataCatalog", databases: ["public"] });
    watsonx = await startWatsonxDataEmulator({ apiKey: "rf-wxd-key", engineId: "presto-01", instanceCrn: "crn:v1:bluemix:public:lakehouse:us-south:a/abc:inst-1::", pg: pgParts(db.url) });
  }, 60_000);

  afterAll(async () => {
    await stopEngine();
    await snowflake?.close();
    await databricks?.close();
    await bigquery?.close();
    await athena?.close();
    await watsonx?.close();
    await db?.drop();
  });

  const fixAt = (key: string) => (amount: number) => sql(db.url, `UPDATE src_${key} SET amount = $1 WHERE id = ${BAD_ID}`, [amount]).then(() => undefined);

  const cases = (): Record<string, SourceCase> => ({
    Snowflake: {
      connectorName: "Snowflake",
      key: "snowflake",
      config: () => ({
        credentials: { auth_type: "username/password", username: "SVC", password: "rf-snowflake-token" },
        host: "acme.snowflakecomputing.com",
        role: "R",
        warehouse: "W",
        database: "D",
        schema: "public",
        base_url: snowflake.url,
      }),
      setBadAmount: fixAt("snowflake"),
      throttle: {
        requests: snowflake.requests,
        arm: (armed) => whenCounted(snowflake.control, "partitionRequests", 1, () => ((snowflake.control.throttleNext = 1), armed())),
        throttled: () => snowflake.control.throttled,
        isRead: (r) => r.method === "GET" && /[?&]partition=\d+/.test(r.url),
      },
    },
    Databricks: {
      connectorName: "Databricks",
      key: "databricks",
      config: () => ({ host: "dbc-1.cloud.databricks.com", port: "443", access_token: "rf-databricks-token", http_path: "/sql/1.0/warehouses/rf0001", catalog: "main", schema: "public", base_url: databricks.url }),
      setBadAmount: fixAt("databricks"),
      throttle: {
        requests: databricks.requests,
        arm: (armed) => whenCounted(databricks.control, "chunkRequests", 1, () => ((databricks.control.throttleNext = 1), armed())),
        throttled: () => databricks.control.throttled,
        isRead: (r) => r.method === "GET" && /\/result\/chunks\/\d+/.test(r.url),
      },
    },
    Bigquery: {
      connectorName: "Bigquery",
      key: "bigquery",
      config: () => ({
        project_id: "acme-analytics",
        dataset_id: "public",
        credentials_json: {
          type: "service_account",
          project_id: "acme-analytics",
          private_key_id: "k1",
          private_key: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
          client_email: BQ_EMAIL,
          client_id: "1",
          auth_uri: "https://accounts.google.com/o/oauth2/auth",
          token_uri: `${bigquery.url}/token`,
          auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
          client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/x",
          universe_domain: "googleapis.com",
        },
        api_base_url: bigquery.url,
      }),
      setBadAmount: fixAt("bigquery"),
      throttle: {
        requests: bigquery.requests,
        arm: (armed) => whenCounted(bigquery.state, "pagesServed", 1, () => ((bigquery.state.throttle429 = 1), armed())),
        throttled: () => bigquery.state.throttledAt.length,
        isRead: (r) => r.method === "GET" && /\/queries\/[^/?]+\?.*pageToken=/.test(r.url),
      },
    },
    AwsAthena: {
      connectorName: "AwsAthena",
      key: "athena",
      config: () => ({
        access_key: "AKIDEXAMPLE",
        secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
        workgroup: "primary",
        catalog: "AwsDataCatalog",
        schema: "public",
        output_location: "s3://example-bucket/athena-results/",
        endpoint: athena.url,
      }),
      setBadAmount: fixAt("athena"),
      throttle: {
        requests: athena.requests,
        arm: (armed) => whenCounted(athena.state, "pagesServed", 1, () => ((athena.state.throttle429 = 1), armed())),
        throttled: () => athena.state.throttledAt.length,
        isRead: (r) => r.headers["x-amz-target"] === "AmazonAthena.GetQueryResults" && r.body.includes('"NextToken"'),
      },
    },
    WatsonxData: {
      connectorName: "WatsonxData",
      key: "watsonx",
      config: () => ({
        api_key: "rf-wxd-key",
        region: "us-south",
        engine: "presto",
        engine_id: "presto-01",
        auth_instance_id: "crn:v1:bluemix:public:lakehouse:us-south:a/abc:inst-1::",
        database: pgParts(db.url).database,
        schema: "public",
        api_url: watsonx.apiUrl,
        iam_url: watsonx.iamUrl,
      }),
      setBadAmount: fixAt("watsonx"),
      throttle: {
        requests: watsonx.requests,
        // Its API answers a statement's whole result in one answer: the read's one query request is throttled.
        arm: (armed) => ((watsonx.state.throttleNext = 1), armed()),
        throttled: () => watsonx.state.throttled,
        isRead: (r) => r.method === "POST" && r.url.startsWith("/lakehouse/api/v2/queries/execute/") && r.body.includes("src_watsonx"),
      },
    },
    Redshift: {
      connectorName: "Redshift",
      key: "redshift",
      config: () => {
        const pg = pgParts(db.url);
        return {
          host: pg.host,
          port: String(pg.port),
          database: pg.database,
          schema: "public",
          credentials: { auth_type: "username/password", username: pg.user, password: pg.password || "unused-by-trust-auth" },
          ssl_mode: "disable",
          connect_timeout: 5,
        };
      },
      setBadAmount: fixAt("redshift"),
    },
  });

  for (const name of ["Snowflake", "Databricks", "Bigquery", "AwsAthena", "WatsonxData", "Redshift"]) {
    it(`${name}: the refused row fails alone, is sent alone once fixed, then nothing${name === "Redshift" ? "" : "; a 429 mid-read is waited out"}`, async () => {
      await expectOneRefusedRowThenOnlyItsFix(db.url, cases()[name]);
    }, 120_000);
  }
});

describe("ClickHouse to PostgreSQL: a refused row fails alone", () => {
  let server: ClickhouseServer;
  let db: { url: string; drop(): Promise<void> };

  /** rf.src_clickhouse, written whole: ClickHouse 18.16 changes rows only by asynchronous mutations. */
  async function load(badAmount: number) {
    await server.exec("DROP TABLE IF EXISTS rf.src_clickhouse");
    await server.exec("CREATE TABLE rf.src_clickhouse (id UInt32, amount Int32, label String) ENGINE = MergeTree ORDER BY id");
    await server.exec(`INSERT INTO rf.src_clickhouse SELECT toUInt32(number + 1), if(number + 1 = ${BAD_ID}, toInt32(${badAmount}), toInt32(number + 1)), concat('payment ', toString(number + 1)) FROM system.numbers LIMIT ${ROWS}`);
  }

  beforeAll(async () => {
    server = await startClickhouse();
    await server.exec("CREATE DATABASE rf");
    await load(-Number(BAD_ID));
    db = await createScratchDatabase("ds_ch_rf");
  }, 120_000);

  afterAll(async () => {
    await stopEngine();
    await server?.stop();
    await db?.drop();
  });

  it("Clickhouse: the refused row fails alone, is sent alone once fixed, then nothing", async () => {
    await expectOneRefusedRowThenOnlyItsFix(db.url, {
      connectorName: "Clickhouse",
      key: "clickhouse",
      config: () => ({ url: server.url, username: server.username, password: server.password, database: "rf" }),
      setBadAmount: load,
    });
  }, 120_000);
});
