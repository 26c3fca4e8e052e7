// Oracle source and destination, tested up to the driver's call: no Oracle server can run here, so a
// recording fake stands behind the driver boundary (driver.ts) and the tests assert the SQL text, the
// binds and their definitions, batch errors as per-record outcomes, cursor reads, and sentences. The
// real driver (node-oracledb, thin mode) is exercised only as far as it goes without a server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server, type Socket } from "node:net";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor } from "@/tests/support/connectors";
import { getDefinition, loadDestination, loadSource, maskSecrets, validateConfiguration } from "../registry";
import { JsonNumber } from "../shared/values";
import { columnsSql, PRIMARY_KEYS_SQL } from "./catalog";
import { oracleDestinationWith } from "./destination";
import { allowedAddress, connectString, type OracleBatchResult, type OracleBindDef, type OracleColumn, type OracleDriver } from "./driver";
import { oracleSourceWith, readStatement } from "./source";
import { bindValue, readValue } from "./values";

const COLUMNS: Row[] = [
  ["ID", "NUMBER", 10, 0, "N", 0],
  ["NAME", "VARCHAR2", null, null, "N", 0],
  ["SCORE", "NUMBER", 12, 2, "Y", 0],
  ["BIG", "NUMBER", 19, 0, "Y", 0],
  ["RATIO", "BINARY_DOUBLE", null, null, "Y", 0],
  ["SEEN_AT", "TIMESTAMP(6) WITH TIME ZONE", null, null, "Y", 0],
  ["BORN", "DATE", null, null, "Y", 0],
  ["EXTRA", "CLOB", null, null, "Y", 0],
  ["CREATED", "TIMESTAMP(6)", null, null, "Y", 1],
].map(([COLUMN_NAME, DATA_TYPE, DATA_PRECISION, DATA_SCALE, NULLABLE, HAS_DEFAULT]) => ({
  TABLE_NAME: "PEOPLE",
  COLUMN_NAME,
  DATA_TYPE,
  DATA_PRECISION,
  DATA_SCALE,
  CHAR_LENGTH: DATA_TYPE === "VARCHAR2" ? 100 : 0,
  NULLABLE,
  HAS_DEFAULT,
}));

interface Call {
  kind: "execute" | "executeMany" | "openCursor" | "commit" | "rollback" | "interrupt" | "getRows" | "closeCursor";
  sql?: string;
  binds?: unknown[];
  rows?: unknown[][];
  defs?: OracleBindDef[];
  fetchArraySize?: number;
  count?: number;
}

/** A driver recording every call. `many` answers executeMany; `cursor` gives a cursor's columns and rows. */
function fakeDriver(options: { many?: (sql: string, rows: unknown[][]) => Partial<OracleBatchResult>; cursor?: { columns: OracleColumn[]; rows: unknown[][] }; owners?: number } = {}) {
  const calls: Call[] = [];
  let sessions = 0;
  let closed = 0;
  const driver: OracleDriver = {
    async open() {
      sessions++;
      return {
        serverVersion: "23.4.0.24.5",
        async execute(sql, binds = []) {
          calls.push({ kind: "execute", sql, binds });
          if (sql === columnsSql(false) || sql === columnsSql(true)) return { rows: COLUMNS, rowsAffected: 0 };
          if (sql === PRIMARY_KEYS_SQL) return { rows: [{ TABLE_NAME: "PEOPLE", COLUMN_NAME: "ID" }], rowsAffected: 0 };
          if (sql.includes("ALL_USERS")) return { rows: [{ N: options.owners ?? 1 }], rowsAffected: 0 };
          return { rows: [], rowsAffected: 0 };
        },
        async executeMany(sql, rows, defs) {
          calls.push({ kind: "executeMany", sql, rows, defs });
          const answer = options.many?.(sql, rows) ?? {};
          return { dmlRowCounts: answer.dmlRowCounts ?? rows.map(() => 1), batchErrors: answer.batchErrors ?? [] };
        },
        async openCursor(sql, binds, fetchArraySize) {
          calls.push({ kind: "openCursor", sql, binds, fetchArraySize });
          const source = options.cursor ?? { columns: [], rows: [] };
          let at = 0;
          return {
            columns: source.columns,
            async getRows(count) {
              calls.push({ kind: "getRows", count });
              const rows = source.rows.slice(at, at + count);
              at += rows.length;
              return rows;
            },
            async close() {
              calls.push({ kind: "closeCursor" });
            },
          };
        },
        commit: async () => void calls.push({ kind: "commit" }),
        rollback: async () => void calls.push({ kind: "rollback" }),
        interrupt: async () => void calls.push({ kind: "interrupt" }),
        close: async () => void closed++,
      };
    },
  };
  return { driver, calls, sessions: () => sessions, closed: () => closed };
}

const config = (overrides: Row = {}): Row => ({ host: "127.0.0.1", port: "1521", sid: "ORCLPDB1", username: "sync_user", password: "Oracle-Secret-Passw0rd", ...overrides });
const people = streamFor("PEOPLE");
const rec = (key: string, action: WriteRecord["action"], payload: Row): WriteRecord => ({ key, action, payload });

describe("settings", () => {
  it("accept the reference's settings unchanged, for the source and the destination, with the password masked", () => {
    for (const definition of [getDefinition("Oracle", "source")!, getDefinition("Oracle", "destination")!]) {
      expect(validateConfiguration(definition, config())).toEqual([]);
      expect(maskSecrets(config(), definition)).toMatchObject({ password: "*************", username: "sync_user" });
      expect(validateConfiguration(definition, { host: "h", port: "1521", username: "u", password: "p" })).toEqual([{ path: "sid", message: "sid is required" }]);
    }
  });

  it("refuses a service name that would add parameters or a descriptor to the connect string, at save and at connect", async () => {
    const hostile = ["FREEPDB1?https_proxy=169.254.169.254&https_proxy_port=80", "FREEPDB1/x", "(DESCRIPTION=(ADDRESS=(HOST=10.0.0.1)))", "a b", "x".repeat(129)];
    for (const sid of hostile) {
      for (const definition of [getDefinition("Oracle", "source")!, getDefinition("Oracle", "destination")!]) {
        expect(validateConfiguration(definition, config({ sid })).map((e) => e.path), sid).toEqual(["sid"]);
      }
      expect(() => connectString("10.0.0.5", 1521, sid), sid).toThrow(/service name \(sid\) may hold only/);
      const fake = fakeDriver();
      const result = await oracleSourceWith(fake.driver).check(config({ sid }));
      expect(result.ok, sid).toBe(false);
      expect(result.details).toMatch(/service name \(sid\) may hold only/);
      expect(fake.sessions(), "no connection is opened").toBe(0);
    }
    expect(validateConfiguration(getDefinition("Oracle", "source")!, config({ sid: "orcl.example.com" }))).toEqual([]);
    expect(connectString("10.0.0.5", 1521, "SALES_PDB$1#A-B.example")).toBe("10.0.0.5:1521/SALES_PDB$1#A-B.example");
  });

  it("connects with Easy Connect to the address the outbound policy resolved", async () => {
    expect(connectString("10.0.0.5", 1521, "ORCLPDB1")).toBe("10.0.0.5:1521/ORCLPDB1");
    expect(connectString("::1", 1521, "FREEPDB1")).toBe("[::1]:1521/FREEPDB1");
    expect(await allowedAddress("127.0.0.1", "ORCLPDB1")).toBe("127.0.0.1");
    await expect(allowedAddress("10.1.2.3", "ORCLPDB1")).rejects.toThrow(/private, loopback or link-local/);
    await expect(allowedAddress("169.254.169.254", "ORCLPDB1")).rejects.toThrow(/cloud metadata service/);
  });
});

describe("type mapping from the value model", () => {
  it("binds every value as exact text converted in SQL with an explicit format", () => {
    const at = (column: string, type: string, value: unknown) => {
      const b = bindValue(column, type, value);
      return [b.value, b.expression(":1"), b.bind];
    };
    expect(at("BIG", "NUMBER(19,0)", "9007199254740993")).toEqual(["9007199254740993", "TO_NUMBER(:1)", "STRING"]);
    expect(at("SCORE", "NUMBER(12,2)", new JsonNumber("1234567890.10"))).toEqual(["1234567890.10", "TO_NUMBER(:1)", "STRING"]);
    expect(at("SEEN_AT", "TIMESTAMP(6) WITH TIME ZONE", "2026-01-02T03:04:05.123Z")).toEqual(["2026-01-02T03:04:05.123000000+00:00", `TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM')`, "STRING"]);
    expect(at("CREATED", "TIMESTAMP(6)", "2026-01-02T05:04:05+02:00")).toEqual(["2026-01-02T03:04:05.000000000", `TO_TIMESTAMP(:1, 'YYYY-MM-DD"T"HH24:MI:SS.FF9')`, "STRING"]);
    expect(at("BORN", "DATE", "1990-05-17")[0]).toBe("1990-05-17T00:00:00.000000000");
    expect(at("EXTRA", "CLOB", { a: new JsonNumber("1.50") })).toEqual(['{"a":1.50}', ":1", "CLOB"]);
    expect(at("RATIO", "BINARY_DOUBLE", NaN)).toEqual(["NaN", "TO_BINARY_DOUBLE(:1)", "STRING"]);
    expect(at("RATIO", "BINARY_DOUBLE", "-Infinity")[0]).toBe("-INF");
    expect(at("PIC", "RAW(16)", "\\x00ff")).toEqual([Buffer.from([0, 255]), ":1", "BUFFER"]);
  });

  it("refuses, with a sentence naming the column and the value, what the column cannot hold", () => {
    expect(() => bindValue("SCORE", "NUMBER(12,2)", NaN)).toThrow('Column "SCORE" (NUMBER(12,2)) cannot hold NaN (Oracle NUMBER has no NaN or infinity).');
    expect(() => bindValue("SCORE", "NUMBER", "Infinity")).toThrow(/cannot hold Infinity \(Oracle NUMBER has no NaN or infinity\)/);
    expect(() => bindValue("SEEN_AT", "TIMESTAMP(6) WITH TIME ZONE", "infinity")).toThrow(/Oracle timestamps have no infinity/);
    expect(() => bindValue("BORN", "DATE", "2026-02-30")).toThrow(/cannot hold 2026-02-30/);
    expect(() => bindValue("ID", "NUMBER(10,0)", "ten")).toThrow('Column "ID" (NUMBER(10,0)) cannot hold ten.');
  });

  it("reads NUMBER exactly, instants in ISO 8601, bytes as \\x hex", () => {
    expect(readValue({ name: "BIG", type: "NUMBER" }, "12345678901234567890")).toBe("12345678901234567890");
    expect(readValue({ name: "ID", type: "NUMBER" }, "42")).toBe(42);
    expect(readValue({ name: "SCORE", type: "NUMBER" }, ".5")).toBe("0.5");
    expect(readValue({ name: "RATIO", type: "BINARY_DOUBLE" }, NaN)).toBe("NaN");
    expect(readValue({ name: "SEEN_AT", type: "TIMESTAMP WITH TIME ZONE" }, "2026-01-02T05:04:05.120000000+02:00")).toBe("2026-01-02T03:04:05.12Z");
    expect(readValue({ name: "CREATED", type: "TIMESTAMP" }, "2026-01-02T03:04:05.000000000")).toBe("2026-01-02T03:04:05");
    expect(readValue({ name: "BORN", type: "DATE" }, "1990-05-17T00:00:00")).toBe("1990-05-17T00:00:00");
    expect(readValue({ name: "PIC", type: "RAW" }, Buffer.from([1, 2]))).toBe("\\x0102");
  });
});

describe("destination", () => {
  it("checks the owner and reports the server", async () => {
    const fake = fakeDriver();
    expect(await oracleDestinationWith(fake.driver).check(config())).toEqual({ ok: true, details: 'Connected to Oracle Database 23.4.0.24.5 at 127.0.0.1:1521, service "ORCLPDB1", schema "SYNC_USER".' });
    expect(fake.calls[0]).toMatchObject({ sql: "SELECT COUNT(*) AS N FROM ALL_USERS WHERE USERNAME = :1", binds: ["SYNC_USER"] });
    const none = fakeDriver({ owners: 0 });
    expect(await oracleDestinationWith(none.driver).check(config({ schema: "SALES" }))).toEqual({ ok: false, details: 'Connected, but there is no schema (owner) "SALES" visible to user "sync_user".' });
  });

  it("turns the driver's errors into sentences, never showing the password", async () => {
    const failing = (err: Error): OracleDriver => ({ open: () => Promise.reject(err) });
    const cases: [Error, string][] = [
      [Object.assign(new Error("ORA-01017: invalid credential or not authorized; logon denied Oracle-Secret-Passw0rd"), { code: "ORA-01017", errorNum: 1017 }), 'Login failed for user "sync_user": invalid username or password.'],
      [Object.assign(new Error("NJS-518: cannot connect to Oracle Database. Service ORCLPDB1 is not registered"), { code: "NJS-518" }), 'The listener at 127.0.0.1:1521 does not know the service "ORCLPDB1". Check the service name (sid).'],
      [Object.assign(new Error("NJS-503: connection to host 127.0.0.1 port 1521 could not be established. ECONNREFUSED"), { code: "NJS-503" }), "Could not connect to 127.0.0.1:1521: connection refused. Check the host and port, and that the Oracle listener runs there."],
      [Object.assign(new Error("NJS-510: connection to host 127.0.0.1 port 1521 timed out"), { code: "NJS-510" }), "Timed out after 10 s connecting to 127.0.0.1:1521. Check the host, port and firewall."],
    ];
    for (const [err, sentence] of cases) expect(await oracleDestinationWith(failing(err)).check(config())).toEqual({ ok: false, details: sentence });
  });

  it("discovers the owner's tables from ALL_TAB_COLUMNS with Oracle's declared types", async () => {
    const fake = fakeDriver();
    const catalog = await oracleDestinationWith(fake.driver).discover(config());
    expect(fake.calls.map((c) => c.sql)).toEqual([columnsSql(false), PRIMARY_KEYS_SQL]);
    expect(fake.calls[0].binds).toEqual(["SYNC_USER"]);
    expect(columnsSql(false)).toMatch(/FROM ALL_TAB_COLUMNS c\s+WHERE c\.OWNER = :1/);
    const stream = catalog.streams[0];
    expect(stream).toMatchObject({ name: "PEOPLE", url: "SYNC_USER.PEOPLE", primary_key: ["ID"], batch_support: true });
    expect(stream.json_schema.required).toEqual(["ID", "NAME"]);
    const properties = stream.json_schema.properties as Record<string, { type: unknown; $comment: string }>;
    expect(properties.ID).toEqual({ type: ["integer", "string"], $comment: "NUMBER(10,0)" });
    expect(properties.BORN).toMatchObject({ format: "date-time", $comment: "DATE" });
    expect(properties.NAME.$comment).toBe("VARCHAR2(100)");
  });

  it("upserts the batch with one MERGE run over bind arrays (executeMany), then commits", async () => {
    const fake = fakeDriver();
    const outcomes = await oracleDestinationWith(fake.driver).write(
      config(),
      [
        rec("a", "upsert", { ID: 1, NAME: "Ada", BIG: "9007199254740993", SEEN_AT: "2026-01-02T03:04:05Z" }),
        rec("b", "upsert", { ID: 2, NAME: "Bob", BIG: null, SEEN_AT: null }),
      ],
      { stream: people, batch: true },
    );
    expect(outcomes).toEqual([{ key: "a", ok: true }, { key: "b", ok: true }]);
    const many = fake.calls.filter((c) => c.kind === "executeMany");
    expect(many).toHaveLength(1);
    expect(many[0].sql).toBe(
      `MERGE INTO "SYNC_USER"."PEOPLE" t USING (SELECT TO_NUMBER(:1) AS "BIG", TO_NUMBER(:2) AS "ID", :3 AS "NAME", TO_TIMESTAMP_TZ(:4, 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM') AS "SEEN_AT" FROM DUAL) s ON (t."ID" = s."ID")` +
        ` WHEN MATCHED THEN UPDATE SET t."BIG" = s."BIG", t."NAME" = s."NAME", t."SEEN_AT" = s."SEEN_AT"` +
        ` WHEN NOT MATCHED THEN INSERT ("BIG", "ID", "NAME", "SEEN_AT") VALUES (s."BIG", s."ID", s."NAME", s."SEEN_AT")`,
    );
    expect(many[0].rows).toEqual([
      ["9007199254740993", "1", "Ada", "2026-01-02T03:04:05.000000000+00:00"],
      [null, "2", "Bob", null],
    ]);
    expect(many[0].defs).toEqual([
      { type: "STRING", maxSize: 16 },
      { type: "STRING", maxSize: 1 },
      { type: "STRING", maxSize: 3 },
      { type: "STRING", maxSize: 35 },
    ]);
    expect(fake.calls.map((c) => c.kind).slice(-1)).toEqual(["commit"]);
    expect(fake.closed()).toBe(1);
  });

  it("maps Oracle's batch errors to their records, and reports updates that matched nothing", async () => {
    const fake = fakeDriver({
      many: (sql) =>
        sql.startsWith("INSERT")
          ? { batchErrors: [{ offset: 1, errorNum: 1, message: 'ORA-00001: unique constraint (SYNC_USER.PEOPLE_PK) violated on table SYNC_USER.PEOPLE columns (ID)' }] }
          : sql.startsWith("UPDATE")
            ? { dmlRowCounts: [1, 0] }
            : {},
    });
    const outcomes = await oracleDestinationWith(fake.driver).write(
      config(),
      [
        rec("i1", "insert", { ID: 1, NAME: "A" }),
        rec("i2", "insert", { ID: 2, NAME: "B" }),
        rec("i3", "insert", { ID: 3, NAME: "C", SCORE: NaN }),
        rec("u1", "update", { ID: 1, NAME: "A2" }),
        rec("u2", "update", { ID: 99, NAME: "Nobody" }),
        rec("d1", "delete", { ID: 5 }),
      ],
      { stream: people, batch: true },
    );
    expect(Object.fromEntries(outcomes.map((o) => [o.key, o.ok ? "ok" : o.error]))).toEqual({
      i1: "ok",
      i2: expect.stringMatching(/^ORA-00001: unique constraint/),
      i3: 'Column "SCORE" (NUMBER(12,2)) cannot hold NaN (Oracle NUMBER has no NaN or infinity).',
      u1: "ok",
      u2: 'No row in "PEOPLE" has this primary key, so nothing was updated.',
      d1: "ok",
    });
    const statements = fake.calls.filter((c) => c.kind === "executeMany");
    expect(statements.map((c) => c.sql)).toEqual([
      'INSERT INTO "SYNC_USER"."PEOPLE" ("ID", "NAME") VALUES (TO_NUMBER(:1), :2)',
      'UPDATE "SYNC_USER"."PEOPLE" SET "NAME" = :2 WHERE "ID" = TO_NUMBER(:1)',
      'DELETE FROM "SYNC_USER"."PEOPLE" WHERE "ID" = TO_NUMBER(:1)',
    ]);
    // The NaN record never reached the driver: two insert rows, not three.
    expect(statements[0].rows).toEqual([["1", "A"], ["2", "B"]]);
    expect(outcomes.find((o) => o.key === "i2")?.retryable).toBe(false);
  });

  it("fails the batch as retryable and rolls back when the connection drops; breaks the statement on cancel", async () => {
    const controller = new AbortController();
    const broken: OracleDriver = {
      async open(s) {
        const session = await fakeDriver().driver.open(s);
        return {
          ...session,
          executeMany: async () => {
            controller.abort();
            throw Object.assign(new Error("NJS-500: connection to the Oracle Database was broken"), { code: "NJS-500" });
          },
          interrupt: async () => void interrupted.push(true),
          rollback: async () => void rolledBack.push(true),
        };
      },
    };
    const interrupted: boolean[] = [];
    const rolledBack: boolean[] = [];
    const outcomes = await oracleDestinationWith(broken).write(config(), [rec("a", "insert", { ID: 1, NAME: "A" })], { stream: people, batch: true, signal: controller.signal });
    expect(outcomes).toEqual([{ key: "a", ok: false, retryable: true, error: "NJS-500: connection to the Oracle Database was broken" }]);
    expect(interrupted).toEqual([true]);
    expect(rolledBack).toEqual([true]);
  });
});

describe("source", () => {
  const columns: OracleColumn[] = [
    { name: "ID", type: "NUMBER" },
    { name: "AMOUNT", type: "NUMBER" },
    { name: "UPDATED_AT", type: "TIMESTAMP WITH TIME ZONE" },
  ];
  const rows = Array.from({ length: 5 }, (_, i) => [String(i + 1), `${i}.50`, `2026-01-0${i + 1}T00:00:00.000000000+00:00`]);

  it("builds one SELECT around the model, narrowed and ordered by the cursor column", () => {
    expect(readStatement({ query: "SELECT * FROM orders;" })).toEqual({ sql: "SELECT * FROM (SELECT * FROM orders\n) ds_model", binds: [] });
    expect(readStatement({ query: "SELECT * FROM orders", cursorField: "UPDATED_AT", cursorValue: null })).toEqual({
      sql: 'SELECT * FROM (SELECT * FROM orders\n) ds_model ORDER BY ds_model."UPDATED_AT"',
      binds: [],
    });
    expect(readStatement({ query: "SELECT * FROM orders", cursorField: "UPDATED_AT", cursorValue: "2026-01-03T00:00:00Z" })).toEqual({
      sql: `SELECT * FROM (SELECT * FROM orders\n) ds_model WHERE ds_model."UPDATED_AT" >= TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM') ORDER BY ds_model."UPDATED_AT"`,
      binds: ["2026-01-03T00:00:00.000000000+00:00"],
    });
    expect(readStatement({ query: "SELECT * FROM orders", cursorField: "ID", cursorValue: "42" }).sql).toContain('WHERE ds_model."ID" >= TO_NUMBER(:1)');
  });

  it("refuses a model that is not one read-only SELECT, or that pages itself", () => {
    const source = oracleSourceWith(fakeDriver().driver);
    expect(() => source.checkQuery?.("DELETE FROM orders")).toThrow(/must be a SELECT/);
    expect(() => source.checkQuery?.("SELECT 1 FROM dual; DROP TABLE orders")).toThrow(/single statement/);
    expect(() => source.checkQuery?.("SELECT * FROM orders FOR UPDATE")).toThrow(/must not use FOR UPDATE/);
    expect(() => source.checkQuery?.("SELECT UTL_HTTP.REQUEST('http://x') FROM dual")).toThrow(/must not call utl_http/);
    // q'[…]' strings are strings: read as plain ones, the quote inside would hide the call (review finding 1).
    expect(() => source.checkQuery?.("SELECT q'[']' AS a, utl_http.request(q'[http://169.254.169.254/]') AS b, q'[']' AS c FROM dual")).toThrow(/must not call utl_http/);
    expect(() => source.checkQuery?.("SELECT sys.urifactory.geturi('http://169.254.169.254/').getclob() FROM dual")).toThrow(/must not call urifactory/);
    expect(() => source.checkQuery?.("SELECT * FROM orders FETCH FIRST 10 ROWS ONLY")).toThrow(/must not end with LIMIT or OFFSET/);
    expect(() => source.checkQuery?.("WITH t AS (SELECT 1 AS n FROM dual) SELECT n FROM t")).not.toThrow();
  });

  it("streams batches through one cursor fetching a batch per round trip, in a read-only transaction", async () => {
    const fake = fakeDriver({ cursor: { columns, rows } });
    const batches: Row[][] = [];
    for await (const batch of oracleSourceWith(fake.driver).read(config(), { query: "SELECT * FROM orders", batchSize: 2, cursorField: "UPDATED_AT", cursorValue: "2026-01-01T00:00:00Z" })) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(batches[0][0]).toEqual({ ID: 1, AMOUNT: "0.50", UPDATED_AT: "2026-01-01T00:00:00Z" });
    const kinds = fake.calls.map((c) => c.kind);
    expect(kinds).toEqual(["execute", "openCursor", "getRows", "getRows", "getRows", "closeCursor", "rollback"]);
    expect(fake.calls[0].sql).toBe("SET TRANSACTION READ ONLY");
    expect(fake.calls[1]).toMatchObject({ fetchArraySize: 2, binds: ["2026-01-01T00:00:00.000000000+00:00"] });
    expect(fake.closed()).toBe(1);
  });

  it("stops, breaking the statement and closing the cursor, when the run is canceled", async () => {
    const fake = fakeDriver({ cursor: { columns, rows } });
    const controller = new AbortController();
    const read = oracleSourceWith(fake.driver).read(config(), { query: "SELECT * FROM orders", batchSize: 2, signal: controller.signal });
    const seen: Row[][] = [];
    await expect(
      (async () => {
        for await (const batch of read) {
          seen.push(batch);
          controller.abort(new Error("The run was canceled."));
        }
      })(),
    ).rejects.toThrow("The run was canceled.");
    expect(seen).toHaveLength(1);
    expect(fake.calls.map((c) => c.kind)).toEqual(expect.arrayContaining(["interrupt", "closeCursor", "rollback"]));
    expect(fake.closed()).toBe(1);
  });

  it("previews at most `limit` rows with FETCH FIRST, read-only", async () => {
    const fake = fakeDriver({ cursor: { columns, rows } });
    const result = await oracleSourceWith(fake.driver).query!(config(), "SELECT * FROM orders", 3);
    expect(result.rows).toHaveLength(3);
    expect(result.columns).toEqual(columns.map((c) => ({ name: c.name, type: c.type })));
    expect(fake.calls[1]).toMatchObject({ kind: "openCursor", sql: "SELECT * FROM (SELECT * FROM orders\n) ds_model FETCH FIRST :1 ROWS ONLY", binds: [3] });
  });

  it("discovers tables and views of the owner", async () => {
    const fake = fakeDriver();
    const catalog = await oracleSourceWith(fake.driver).discover(config({ schema: "SALES" }));
    expect(fake.calls[0]).toMatchObject({ sql: columnsSql(true), binds: ["SALES"] });
    expect(columnsSql(true)).toContain("OBJECT_TYPE IN ('TABLE', 'VIEW')");
    expect(catalog.streams.map((s) => s.name)).toEqual(["PEOPLE"]);
  });
});

describe("the real driver (node-oracledb thin mode), as far as it goes without a server", () => {
  let silent: Server;
  let silentPort: number;
  const accepted: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => {
      accepted.push(socket);
      socket.on("error", () => undefined);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("explains a refused connection", async () => {
    const result = await (await loadSource("Oracle")).check(config({ port: String(await closedPort()) }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/^Could not connect to 127\.0\.0\.1:\d+: connection refused/) });
  });

  it("gives up on a listener that never answers after the connect timeout", async () => {
    const result = await (await loadDestination("Oracle")).check(config({ port: String(silentPort), connect_timeout: 1 }));
    expect(result).toEqual({ ok: false, details: `Timed out after 1 s connecting to 127.0.0.1:${silentPort}. Check the host, port and firewall.` });
  });

  it("refuses a private address", async () => {
    const result = await (await loadDestination("Oracle")).check(config({ host: "10.1.2.3" }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local addresses \(10\.1\.2\.3/) });
  });
});
