// Microsoft SQL destination: multi-row INSERT, MERGE by primary key for upserts, UPDATE and DELETE
// joined to a VALUES list, each value bound with a type that holds it (values.ts), bad rows isolated
// by the shared bisecting writer inside SAVE TRANSACTION points. Tested up to the driver's call only:
// no SQL Server runs here (docs/connectors/microsoft-sql.md).
import type { Catalog, CheckResult, DestinationConnector, Row, WriteAction, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { ConnectorError, safeCheck, withDescribedErrors } from "../shared/errors";
import { destinationTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { failAll, writeWithIsolation, type SqlBatchWriter } from "../shared/sql-write";
import type { ColumnInfo } from "../shared/sql";
import { assertHostAllowed } from "@/lib/net/policy";
import { mssqlDriver, type MssqlDriver, type MssqlSession } from "./driver";
import { describeMssqlError, isRecordError } from "./errors";
import { microsoftSqlDestinationDefinition } from "./definition";
import { mssqlSettings, tryMssqlSettings, type MssqlSettings } from "./settings";
import { missedKeys, refusedValues, writeStatements } from "./statements";

export const COLUMNS_SQL = `SELECT c.TABLE_NAME AS table_name, c.COLUMN_NAME AS column_name, c.DATA_TYPE AS data_type,
       c.CHARACTER_MAXIMUM_LENGTH AS char_length, c.NUMERIC_PRECISION AS num_precision, c.NUMERIC_SCALE AS num_scale,
       c.DATETIME_PRECISION AS dt_precision, c.IS_NULLABLE AS is_nullable,
       CASE WHEN c.COLUMN_DEFAULT IS NOT NULL
              OR COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + '.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsIdentity') = 1
              OR COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + '.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsComputed') = 1
            THEN 1 ELSE 0 END AS has_default
  FROM INFORMATION_SCHEMA.COLUMNS c
  JOIN INFORMATION_SCHEMA.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME AND t.TABLE_TYPE = 'BASE TABLE'
 WHERE c.TABLE_SCHEMA = @schema
 ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION;`;

export const PRIMARY_KEYS_SQL = `SELECT ku.TABLE_NAME AS table_name, ku.COLUMN_NAME AS column_name
  FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc
  JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE ku
    ON ku.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND ku.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
 WHERE tc.CONSTRAINT_TYPE = 'PRIMARY KEY' AND tc.TABLE_SCHEMA = @schema
 ORDER BY ku.TABLE_NAME, ku.ORDINAL_POSITION;`;

/** The column's type as a declaration: `nvarchar(200)`, `nvarchar(max)`, `decimal(10,2)`, `datetime2(7)`. */
export function columnType(r: Row): string {
  const type = String(r.data_type).toLowerCase();
  const length = r.char_length === null || r.char_length === undefined ? undefined : Number(r.char_length);
  if (/^(n?(var)?char|(var)?binary)$/.test(type) && length !== undefined) return `${type}(${length === -1 ? "max" : length})`;
  if (type === "decimal" || type === "numeric") return `${type}(${Number(r.num_precision)},${Number(r.num_scale)})`;
  if (/^(datetime2|datetimeoffset|time)$/.test(type) && r.dt_precision !== null && r.dt_precision !== undefined) return `${type}(${Number(r.dt_precision)})`;
  return type;
}

async function listTables(session: MssqlSession, schema: string, signal?: AbortSignal): Promise<Map<string, TableInfo>> {
  const params = [{ name: "schema", type: "NVarChar" as const, value: schema }];
  const columns = await session.run(COLUMNS_SQL, params, signal);
  const keys = await session.run(PRIMARY_KEYS_SQL, params, signal);
  const tables = new Map<string, TableInfo>();
  for (const r of columns.rows) {
    const name = String(r.table_name);
    const table = tables.get(name) ?? { name, columns: [] as ColumnInfo[], primaryKey: [] as string[] };
    table.columns.push({ name: String(r.column_name), type: columnType(r), nullable: r.is_nullable === "YES", hasDefault: Number(r.has_default) === 1 });
    tables.set(name, table);
  }
  for (const k of keys.rows) tables.get(String(k.table_name))?.primaryKey.push(String(k.column_name));
  return tables;
}

function mssqlWriter(session: MssqlSession, s: MssqlSettings, signal?: AbortSignal): SqlBatchWriter {
  return {
    savepoint: () => session.run("SAVE TRANSACTION ds_batch;", [], signal).then(() => undefined),
    // A doomed transaction refuses this; the error is not a row's, so the whole batch fails and is retried.
    rollbackToSavepoint: () => session.run("ROLLBACK TRANSACTION ds_batch;", [], signal).then(() => undefined),
    // SQL Server has no RELEASE SAVEPOINT: a save point ends with its transaction.
    releaseSavepoint: () => Promise.resolve(),
    isRecordError,
    describeError: (err) => describeMssqlError(err, s),
    async writeGroup(table: TableInfo, action: WriteAction, columns: string[], records: WriteRecord[]) {
      const misses = refusedValues(table, action === "delete" ? table.primaryKey : columns, records);
      const writable = records.filter((r) => !misses.has(r.key));
      for (const statement of writeStatements(s.schema, table, action, columns, writable)) {
        const result = await session.run(statement.sql, statement.params, signal);
        if (action === "update") {
          for (const key of missedKeys(statement, result.rows)) misses.set(key, `No row in "${table.name}" has this primary key, so nothing was updated.`);
        }
      }
      return misses;
    },
  };
}

/** The Microsoft SQL destination over a driver (the real one, or a test's fake). */
export function microsoftSqlDestinationWith(driver: MssqlDriver): DestinationConnector {
  async function open(s: MssqlSettings): Promise<MssqlSession> {
    // An early, clear refusal; the driver's socket goes through the policy again (driver.ts).
    await assertHostAllowed(s.host, undefined, { database: s.database });
    return driver.open(s);
  }

  async function withSession<T>(config: Row, fn: (session: MssqlSession, s: MssqlSettings) => Promise<T>): Promise<T> {
    const s = mssqlSettings(config);
    const session = await open(s);
    try {
      return await fn(session, s);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
    return safeCheck(
      microsoftSqlDestinationDefinition,
      config,
      () =>
        withSession(config, async (session, s) => {
          const { rows } = await session.run(
            "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version, CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition, SCHEMA_ID(@schema) AS schema_id;",
            [{ name: "schema", type: "NVarChar", value: s.schema }],
            signal,
          );
          if (rows[0]?.schema_id === null || rows[0]?.schema_id === undefined) {
            return { ok: false, details: `Connected, but schema "${s.schema}" does not exist in database "${s.database}".` };
          }
          return { ok: true, details: `Connected to SQL Server ${String(rows[0].version)} (${String(rows[0].edition)}) at ${s.host}:${s.port}, database "${s.database}".` };
        }),
      (err) => describeMssqlError(err, tryMssqlSettings(config)),
    );
  }

  async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
    return withDescribedErrors(
      () => withSession(config, async (session, s) => destinationTablesCatalog((await listTables(session, s.schema, signal)).values(), s.schema)),
      (err) => describeMssqlError(err, tryMssqlSettings(config)),
    );
  }

  async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
    if (records.length === 0) return [];
    let s: MssqlSettings;
    let session: MssqlSession;
    try {
      s = mssqlSettings(config);
    } catch (err) {
      return records.map((r) => ({ key: r.key, ok: false, error: describeMssqlError(err), retryable: false }));
    }
    try {
      session = await open(s);
    } catch (err) {
      return failAll(records, err, (e) => describeMssqlError(e, s));
    }
    const signal = options.signal;
    try {
      const table = (await listTables(session, s.schema, signal)).get(options.stream.name);
      if (!table) throw new ConnectorError(`Table "${s.schema}"."${options.stream.name}" does not exist.`);
      // XACT_ABORT off: a constraint error ends its statement, not the transaction, so the save point can undo it.
      await session.run("SET XACT_ABORT OFF; BEGIN TRANSACTION;", [], signal);
      const outcomes = await writeWithIsolation(table, records, mssqlWriter(session, s, signal));
      await session.run("COMMIT TRANSACTION;", [], signal);
      return outcomes;
    } catch (err) {
      await session.run("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;").catch(() => undefined);
      if (err instanceof ConnectorError) return records.map((r) => ({ key: r.key, ok: false, error: err.message, retryable: false }));
      return failAll(records, err, (e) => describeMssqlError(e, s));
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  return { definition: microsoftSqlDestinationDefinition, check, discover, write };
}

export const microsoftSqlDestination = microsoftSqlDestinationWith(mssqlDriver);
