// Microsoft SQL destination, tested up to the driver's call: no SQL Server can run here, so a
// recording fake stands behind the driver boundary (driver.ts) and the tests assert the SQL text, the
// bound parameters and their types, batching, and how driver errors become outcomes and sentences.
// The real driver (mssql/tedious) is exercised only as far as it goes without a server: refused and
// policy-blocked connections.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor } from "@/tests/support/connectors";
import { getDefinition, loadDestination, maskSecrets, validateConfiguration } from "../registry";
import { COLUMNS_SQL, microsoftSqlDestinationWith, PRIMARY_KEYS_SQL } from "./destination";
import { mssqlDriver, type MssqlDriver, type MssqlParam, type MssqlResult } from "./driver";
import { bindValue } from "./values";
import { mssqlSettings } from "./settings";
import { JsonNumber } from "../shared/values";

interface Call {
  sql: string;
  params: MssqlParam[];
  signal?: AbortSignal;
}

const COLUMNS: Row[] = [
  ["id", "int", null, 10, 0, null, "NO", 0],
  ["name", "nvarchar", 100, null, null, null, "NO", 0],
  ["email", "nvarchar", -1, null, null, null, "YES", 0],
  ["score", "decimal", null, 10, 2, null, "YES", 0],
  ["big", "bigint", null, 19, 0, null, "YES", 0],
  ["ratio", "float", null, 53, null, null, "YES", 0],
  ["seen_at", "datetime2", null, null, null, 7, "YES", 0],
  ["extra", "nvarchar", -1, null, null, null, "YES", 0],
  ["active", "bit", null, null, null, null, "YES", 1],
].map(([column_name, data_type, char_length, num_precision, num_scale, dt_precision, is_nullable, has_default]) => ({
  table_name: "people",
  column_name,
  data_type,
  char_length,
  num_precision,
  num_scale,
  dt_precision,
  is_nullable,
  has_default,
}));

/** A driver that records every statement and answers with `answer` (which may throw). */
function fakeDriver(answer: (call: Call) => Partial<MssqlResult> | undefined = () => undefined) {
  const calls: Call[] = [];
  const opened: unknown[] = [];
  let closed = 0;
  const driver: MssqlDriver = {
    async open(settings) {
      opened.push(settings);
      return {
        async run(sql, params = [], signal) {
          const call = { sql, params, signal };
          calls.push(call);
          if (sql === COLUMNS_SQL) return { rows: COLUMNS, rowsAffected: COLUMNS.length };
          if (sql === PRIMARY_KEYS_SQL) return { rows: [{ table_name: "people", column_name: "id" }], rowsAffected: 1 };
          const result = answer(call);
          return { rows: result?.rows ?? [], rowsAffected: result?.rowsAffected ?? 0 };
        },
        close: async () => {
          closed++;
        },
      };
    },
  };
  return { driver, calls, opened, closed: () => closed, writes: () => calls.filter((c) => /^(INSERT|MERGE|UPDATE|DELETE|SELECT s\.)/.test(c.sql)) };
}

const config = (overrides: Row = {}): Row => ({
  credentials: { auth_type: "username/password", username: "sync_writer", password: "MsSql-Secret-Passw0rd" },
  host: "127.0.0.1",
  port: "1433",
  database: "crm",
  schema: "dbo",
  ...overrides,
});
const people = streamFor("people");
const rec = (key: string, action: WriteRecord["action"], payload: Row): WriteRecord => ({ key, action, payload });

/** A driver error as mssql throws it for a SQL Server error number. */
const serverError = (number: number, message: string) => Object.assign(new Error(message), { code: "EREQUEST", number });

describe("settings", () => {
  const definition = getDefinition("MicrosoftSql", "destination")!;

  it("accepts the reference's settings unchanged, reads the port from its string and masks the password", () => {
    expect(validateConfiguration(definition, config())).toEqual([]);
    expect(mssqlSettings(config())).toMatchObject({ host: "127.0.0.1", port: 1433, database: "crm", schema: "dbo", user: "sync_writer", encrypt: true, trustServerCertificate: false });
    expect(maskSecrets(config(), definition)).toMatchObject({ credentials: { password: "*************" } });
  });

  it("refuses settings without credentials", () => {
    const { credentials: _omitted, ...bare } = config();
    expect(validateConfiguration(definition, bare)).toEqual([{ path: "credentials", message: expect.stringMatching(/credentials is required/) }]);
  });
});

describe("type mapping from the value model", () => {
  it("binds each value with a type that holds it exactly", () => {
    expect(bindValue("id", "int", 42)).toEqual({ type: "Int", value: 42 });
    expect(bindValue("big", "bigint", "9223372036854775807")).toEqual({ type: "BigInt", value: "9223372036854775807" });
    expect(bindValue("big", "bigint", new JsonNumber("12345678901234567")).value).toBe("12345678901234567");
    expect(bindValue("score", "decimal(38,10)", "1234567890123456789.0123456789")).toEqual({ type: "NVarChar", value: "1234567890123456789.0123456789", cast: "decimal(38,10)" });
    expect(bindValue("ratio", "float", 0.1)).toEqual({ type: "Float", value: 0.1 });
    expect(bindValue("seen_at", "datetime2(7)", "2026-01-02T05:04:05.1234567+02:00")).toEqual({ type: "NVarChar", value: "2026-01-02T03:04:05.1234567", cast: "datetime2(7)" });
    expect(bindValue("seen_at", "datetimeoffset(7)", "2026-01-02T05:04:05+02:00")).toEqual({ type: "NVarChar", value: "2026-01-02T05:04:05+02:00", cast: "datetimeoffset(7)" });
    expect(bindValue("extra", "nvarchar(max)", { n: new JsonNumber("1.50"), s: "x" })).toEqual({ type: "NVarChar", value: '{"n":1.50,"s":"x"}' });
    expect(bindValue("active", "bit", "true")).toEqual({ type: "Bit", value: true });
    expect(bindValue("blob", "varbinary(max)", "\\x00ff")).toEqual({ type: "VarBinary", value: Buffer.from([0, 255]) });
    expect(bindValue("id", "int", null)).toEqual({ type: "NVarChar", value: null, cast: "int" });
  });

  it("refuses, with a sentence naming the column and the value, what the column cannot hold", () => {
    expect(() => bindValue("ratio", "float", NaN)).toThrow('Column "ratio" (float) cannot hold NaN (SQL Server floats have no NaN or infinity).');
    expect(() => bindValue("ratio", "float", "Infinity")).toThrow(/cannot hold Infinity \(SQL Server floats have no NaN or infinity\)/);
    expect(() => bindValue("score", "decimal(10,2)", "NaN")).toThrow(/Column "score" \(decimal\(10,2\)\) cannot hold NaN/);
    expect(() => bindValue("id", "int", 1.5)).toThrow('Column "id" (int) cannot hold 1.5.');
    expect(() => bindValue("id", "smallint", 40000)).toThrow(/cannot hold 40000/);
    expect(() => bindValue("big", "bigint", "9223372036854775808")).toThrow(/beyond a 64-bit integer/);
    expect(() => bindValue("seen_at", "datetime2(7)", "infinity")).toThrow(/SQL Server dates have no infinity/);
    expect(() => bindValue("seen_at", "datetime2(7)", "2026-02-30T00:00:00Z")).toThrow(/cannot hold 2026-02-30/);
  });
});

describe("check and discover", () => {
  it("reports the server and checks the schema", async () => {
    const fake = fakeDriver((call) => (/SERVERPROPERTY/.test(call.sql) ? { rows: [{ version: "16.0.4135.4", edition: "Developer Edition (64-bit)", schema_id: 1 }] } : undefined));
    const result = await microsoftSqlDestinationWith(fake.driver).check(config());
    expect(result).toEqual({ ok: true, details: 'Connected to SQL Server 16.0.4135.4 (Developer Edition (64-bit)) at 127.0.0.1:1433, database "crm".' });
    expect(fake.calls[0].params).toEqual([{ name: "schema", type: "NVarChar", value: "dbo" }]);
    expect(fake.closed()).toBe(1);
    const missing = fakeDriver(() => ({ rows: [{ version: "16", edition: "x", schema_id: null }] }));
    expect(await microsoftSqlDestinationWith(missing.driver).check(config({ schema: "sales" }))).toEqual({ ok: false, details: 'Connected, but schema "sales" does not exist in database "crm".' });
  });

  it("turns the driver's connection errors into sentences, never showing the password", async () => {
    const failing = (err: Error): MssqlDriver => ({ open: () => Promise.reject(err) });
    const login = Object.assign(new Error("Login failed for user 'sync_writer'. MsSql-Secret-Passw0rd"), { code: "ELOGIN" });
    expect(await microsoftSqlDestinationWith(failing(login)).check(config())).toEqual({ ok: false, details: 'Login failed for user "sync_writer". Check the username and password.' });
    const refused = Object.assign(new Error("Failed to connect to 127.0.0.1:1433 - connect ECONNREFUSED"), { code: "ESOCKET", cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    expect((await microsoftSqlDestinationWith(failing(refused)).check(config())).details).toBe(
      "Could not connect to 127.0.0.1:1433: connection refused. Check the host and port, and that SQL Server accepts TCP connections.",
    );
    const timeout = Object.assign(new Error("Failed to connect to 127.0.0.1:1433 in 10000ms"), { code: "ETIMEOUT" });
    expect((await microsoftSqlDestinationWith(failing(timeout)).check(config())).details).toBe("Timed out after 10 s connecting to 127.0.0.1:1433. Check the host, port and firewall.");
    const database = serverError(4060, "Cannot open database");
    expect((await microsoftSqlDestinationWith(failing(database)).check(config())).details).toBe('Cannot open database "crm": it does not exist or user "sync_writer" may not use it.');
  });

  it("refuses a private address before the driver is called", async () => {
    const fake = fakeDriver();
    const result = await microsoftSqlDestinationWith(fake.driver).check(config({ host: "10.1.2.3" }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local addresses \(10\.1\.2\.3/) });
    expect(fake.opened).toEqual([]);
  });

  it("discovers the schema's tables with their types, required columns and primary key", async () => {
    const fake = fakeDriver();
    const catalog = await microsoftSqlDestinationWith(fake.driver).discover(config());
    expect(fake.calls.map((c) => c.sql)).toEqual([COLUMNS_SQL, PRIMARY_KEYS_SQL]);
    const stream = catalog.streams[0];
    expect(stream).toMatchObject({ name: "people", url: "dbo.people", primary_key: ["id"], batch_support: true });
    expect(stream.json_schema.required).toEqual(["id", "name"]);
    const properties = stream.json_schema.properties as Record<string, { $comment: string }>;
    expect(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.$comment]))).toEqual({
      id: "int", name: "nvarchar(100)", email: "nvarchar(max)", score: "decimal(10,2)", big: "bigint", ratio: "float", seen_at: "datetime2(7)", extra: "nvarchar(max)", active: "bit",
    });
  });
});

describe("writes", () => {
  it("upserts with one MERGE whose VALUES cells are typed parameters, inside a transaction", async () => {
    const fake = fakeDriver();
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(
      config(),
      [
        rec("a", "upsert", { id: 1, name: "Ada", big: "9007199254740993", score: "12.50", seen_at: "2026-01-02T03:04:05.123Z", extra: { tags: ["x"] } }),
        rec("b", "upsert", { id: 2, name: "Bob", big: 7, score: 3, seen_at: null, extra: null }),
      ],
      { stream: people, batch: true },
    );
    expect(outcomes).toEqual([{ key: "a", ok: true }, { key: "b", ok: true }]);
    const sqls = fake.calls.map((c) => c.sql).filter((s) => s !== COLUMNS_SQL && s !== PRIMARY_KEYS_SQL);
    expect(sqls[0]).toBe("SET XACT_ABORT OFF; BEGIN TRANSACTION;");
    expect(sqls[1]).toBe("SAVE TRANSACTION ds_batch;");
    expect(sqls[2]).toBe(
      "MERGE INTO [dbo].[people] WITH (HOLDLOCK) AS t USING (VALUES " +
        "(@p0, @p1, @p2, @p3, CAST(@p4 AS decimal(10,2)), CAST(@p5 AS datetime2(7)))" +
        ", (@p6, @p7, @p8, @p9, CAST(@p10 AS decimal(10,2)), CAST(@p11 AS datetime2(7)))" +
        ") AS s ([big], [extra], [id], [name], [score], [seen_at]) ON t.[id] = s.[id]" +
        " WHEN MATCHED THEN UPDATE SET t.[big] = s.[big], t.[extra] = s.[extra], t.[name] = s.[name], t.[score] = s.[score], t.[seen_at] = s.[seen_at]" +
        " WHEN NOT MATCHED THEN INSERT ([big], [extra], [id], [name], [score], [seen_at]) VALUES (s.[big], s.[extra], s.[id], s.[name], s.[score], s.[seen_at]);",
    );
    expect(fake.writes()[0].params).toEqual([
      { name: "p0", type: "BigInt", value: "9007199254740993" },
      { name: "p1", type: "NVarChar", value: '{"tags":["x"]}' },
      { name: "p2", type: "Int", value: 1 },
      { name: "p3", type: "NVarChar", value: "Ada" },
      { name: "p4", type: "NVarChar", value: "12.50" },
      { name: "p5", type: "NVarChar", value: "2026-01-02T03:04:05.123" },
      { name: "p6", type: "BigInt", value: "7" },
      { name: "p7", type: "NVarChar", value: null },
      { name: "p8", type: "Int", value: 2 },
      { name: "p9", type: "NVarChar", value: "Bob" },
      { name: "p10", type: "NVarChar", value: "3" },
      { name: "p11", type: "NVarChar", value: null },
    ]);
    expect(sqls.at(-1)).toBe("COMMIT TRANSACTION;");
    expect(fake.closed()).toBe(1);
  });

  it("inserts, updates (reporting keys that matched nothing) and deletes by primary key", async () => {
    const fake = fakeDriver((call) => (call.sql.startsWith("SELECT s.[ds_ord]") ? { rows: [{ ds_ord: 1 }] } : undefined));
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(
      config(),
      [rec("i", "insert", { id: 5, name: "Eve" }), rec("u1", "update", { id: 1, name: "Ann" }), rec("u2", "update", { id: 99, name: "Nobody" }), rec("d", "delete", { id: 3 })],
      { stream: people, batch: true },
    );
    expect(Object.fromEntries(outcomes.map((o) => [o.key, o.error ?? "ok"]))).toEqual({ i: "ok", u1: "ok", u2: 'No row in "people" has this primary key, so nothing was updated.', d: "ok" });
    const [insert, update, del] = fake.writes();
    expect(insert.sql).toBe("INSERT INTO [dbo].[people] ([id], [name]) VALUES (@p0, @p1);");
    expect(update.sql).toBe(
      "SELECT s.[ds_ord] AS ds_ord FROM (VALUES (0, @p0, @p1), (1, @p2, @p3)) AS s ([ds_ord], [id], [name]) WHERE NOT EXISTS (SELECT 1 FROM [dbo].[people] AS t WHERE t.[id] = s.[id]);\n" +
        "UPDATE t SET t.[name] = s.[name] FROM [dbo].[people] AS t INNER JOIN (VALUES (0, @p0, @p1), (1, @p2, @p3)) AS s ([ds_ord], [id], [name]) ON t.[id] = s.[id];",
    );
    expect(del.sql).toBe("DELETE t FROM [dbo].[people] AS t INNER JOIN (VALUES (@p0)) AS s ([id]) ON t.[id] = s.[id];");
    expect(del.params).toEqual([{ name: "p0", type: "Int", value: 3 }]);
  });

  it("fails a value its column cannot hold on its own record, and never sends it", async () => {
    const fake = fakeDriver();
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(
      config(),
      [rec("ok", "upsert", { id: 1, name: "A", ratio: 0.5 }), rec("nan", "upsert", { id: 2, name: "B", ratio: NaN })],
      { stream: people, batch: true },
    );
    expect(outcomes.find((o) => o.key === "ok")).toEqual({ key: "ok", ok: true });
    expect(outcomes.find((o) => o.key === "nan")).toEqual({ key: "nan", ok: false, retryable: false, error: 'Column "ratio" (float) cannot hold NaN (SQL Server floats have no NaN or infinity).' });
    expect(fake.writes()).toHaveLength(1);
    expect(fake.writes()[0].params.map((p) => p.value)).toEqual([1, "A", 0.5]);
  });

  it("isolates the row the server refuses by bisecting inside save points", async () => {
    // The server refuses any statement that carries id 7 (a duplicate key).
    const fake = fakeDriver((call) => {
      if (/^(INSERT|MERGE)/.test(call.sql) && call.params.some((p) => p.type === "Int" && p.value === 7)) {
        throw serverError(2627, "Violation of PRIMARY KEY constraint 'PK_people'. Cannot insert duplicate key in object 'dbo.people'. The duplicate key value is (7).");
      }
      return undefined;
    });
    const records = Array.from({ length: 8 }, (_, i) => rec(`k${i}`, "insert", { id: i, name: `P${i}` }));
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(config(), records, { stream: people, batch: true });
    expect(outcomes.filter((o) => !o.ok)).toEqual([{ key: "k7", ok: false, retryable: false, error: expect.stringMatching(/Violation of PRIMARY KEY constraint.*\(7\)/) }]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(7);
    const sqls = fake.calls.map((c) => c.sql);
    expect(sqls.filter((s) => s === "ROLLBACK TRANSACTION ds_batch;").length).toBeGreaterThanOrEqual(3);
    expect(sqls.at(-1)).toBe("COMMIT TRANSACTION;");
  });

  it("splits a large batch into statements under 2,100 parameters", async () => {
    const fake = fakeDriver();
    const records = Array.from({ length: 1500 }, (_, i) => rec(`k${i}`, "upsert", { id: i, name: `P${i}`, email: `p${i}@example.com` }));
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(config(), records, { stream: people, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const merges = fake.writes();
    expect(merges.map((m) => m.params.length)).toEqual([1998, 1998, 504]);
    expect(merges.every((m) => m.params.length <= 2000)).toBe(true);
  });

  it("fails the whole batch as retryable when the connection drops, rolling back", async () => {
    const fake = fakeDriver((call) => {
      if (call.sql.startsWith("MERGE")) throw Object.assign(new Error("Connection lost - read ECONNRESET"), { code: "ESOCKET" });
      return undefined;
    });
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(config(), [rec("a", "upsert", { id: 1, name: "A" })], { stream: people, batch: true });
    expect(outcomes).toEqual([{ key: "a", ok: false, retryable: true, error: "Connection lost - read ECONNRESET" }]);
    expect(fake.calls.at(-1)?.sql).toBe("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;");
  });

  it("passes the run's cancel signal to every statement and reports a canceled batch as retryable", async () => {
    const controller = new AbortController();
    const fake = fakeDriver((call) => {
      if (call.sql.startsWith("MERGE")) {
        controller.abort();
        throw Object.assign(new Error("Canceled."), { code: "ECANCEL" });
      }
      return undefined;
    });
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(config(), [rec("a", "upsert", { id: 1, name: "A" })], { stream: people, batch: true, signal: controller.signal });
    expect(outcomes).toEqual([{ key: "a", ok: false, retryable: true, error: "The statement was canceled." }]);
    expect(fake.calls.filter((c) => c.sql !== "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;").every((c) => c.signal === controller.signal)).toBe(true);
  });

  it("fails every record of a table that does not exist, without retrying", async () => {
    const fake = fakeDriver();
    const outcomes = await microsoftSqlDestinationWith(fake.driver).write(config(), [rec("a", "insert", { id: 1 })], { stream: streamFor("nope"), batch: true });
    expect(outcomes).toEqual([{ key: "a", ok: false, retryable: false, error: 'Table "dbo"."nope" does not exist.' }]);
  });
});

describe("the real driver, as far as it goes without a server", () => {
  let silent: Server;
  let silentPort: number;
  const accepted: Socket[] = [];
  beforeAll(async () => {
    // Accepts TCP connections and never answers: the login must time out.
    silent = createServer((socket) => {
      accepted.push(socket);
      socket.on("error", () => undefined);
      // Read (and drop) what the client sends, so its closing is seen.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

  it("closes the socket of a login that timed out", async () => {
    await (await loadDestination("MicrosoftSql")).check(config({ port: String(silentPort), connect_timeout: 1 }));
    const last = accepted.at(-1);
    expect(last).toBeDefined();
    // The client's end of a timed-out login is destroyed, so the server sees the connection close.
    await new Promise<void>((resolve) => (last?.closed ? resolve() : last?.once("close", () => resolve())));
  });

  it("explains a refused connection", async () => {
    const result = await (await loadDestination("MicrosoftSql")).check(config({ port: String(await closedPort()) }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/^Could not connect to 127\.0\.0\.1:\d+: connection refused/) });
  });

  it("gives up on a server that never answers after the connect timeout", async () => {
    const result = await (await loadDestination("MicrosoftSql")).check(config({ port: String(silentPort), connect_timeout: 1 }));
    expect(result).toEqual({ ok: false, details: `Timed out after 1 s connecting to 127.0.0.1:${silentPort}. Check the host, port and firewall.` });
  });

  it("sends its socket through the outbound policy", async () => {
    const settings = mssqlSettings(config({ host: "169.254.169.254" }));
    await expect(mssqlDriver.open(settings)).rejects.toThrow(/cloud metadata service/);
  });
});
