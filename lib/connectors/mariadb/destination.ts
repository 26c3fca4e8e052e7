// MariaDB destination: multi-row INSERT / INSERT … ON DUPLICATE KEY UPDATE, updates and deletes by
// primary key, bad rows isolated by the shared bisecting writer.
import type { PoolConnection, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { DestinationConnector, Row, Stream, WriteAction, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson, JsonNumber, markedNumber } from "../shared/values";
import { destinationTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { failAll, writeWithIsolation, type SqlBatchWriter } from "../shared/sql-write";
import { described, describeMariaError, listColumns, quoteIdent, settingsKey, trySettings, withConnection, type MariaSettings } from "./connection";
import { poolFor, pools, tableInfo, type PoolEntry } from "./pool";
import { mariadbTextUpsert } from "./text-upsert";
import { mariadbDestinationDefinition } from "./definition";
import { checkMariadb } from "./source";

// Data errors a single row can cause: class 22/23 SQLSTATEs plus strict-mode errors that MariaDB
// reports as HY000 (no default value, bad integer/date, CHECK constraint).
const ROW_ERRNOS = new Set([1048, 1062, 1264, 1265, 1292, 1364, 1366, 1406, 1451, 1452, 3140, 4025]);

function isRecordError(err: unknown): boolean {
  const e = err as { sqlState?: string; errno?: number };
  return /^(22|23)/.test(e.sqlState ?? "") || ROW_ERRNOS.has(e.errno ?? 0);
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 instant ("2026-01-01T00:00:01.000Z", what a PostgreSQL timestamptz becomes) as the
 * UTC DATETIME text MariaDB takes (the session runs at +00:00): strict mode refuses the zone. Its
 * fraction is kept as written. Anything else is passed as it is, for the server to judge.
 */
export function mariaDatetime(text: string): string {
  const m = ISO_INSTANT.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, sec, fraction = "", zone] = m;
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const digits = zone.replace(":", "");
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const local = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)));
  // Date.UTC rolls month 13 or hour 99 over: such text is not a date, the server says so.
  if (Number.isNaN(local.getTime()) || local.toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${sec}`) return text;
  const utc = new Date(local.getTime() - offsetMinutes * 60_000);
  return `${utc.toISOString().slice(0, 19).replace("T", " ")}${fraction}`;
}

const isDatetime = (type: string) => /^(datetime|timestamp)/i.test(type);

const isBinary = (type: string) => /^(tiny|medium|long)?blob|^(var)?binary/i.test(type);
/** Bytes as the value model carries them (PostgreSQL's bytea text): `\x` and hex digits. */
const HEX_BYTES = /^\\x(?:[0-9a-fA-F]{2})*$/;

/**
 * A payload value as mysql2 should send it for a column of `type`: objects as exact JSON text
 * (mysql2 would expand them into `key = value` pairs), ISO instants in date-time columns as UTC
 * DATETIME text, `\x…` hex into binary columns as its bytes. NaN, the infinities, intervals and
 * infinite timestamps go as their text: MariaDB cannot hold them, and strict mode fails the record
 * with a sentence naming the column and the value (docs/connectors.md, "Values").
 */
function sqlValue(value: unknown, type = ""): unknown {
  if (value !== null && typeof value === "object") return value instanceof JsonNumber ? value.text : exactJson(value);
  if (typeof value !== "string") return value;
  if (isDatetime(type)) return mariaDatetime(value);
  if (isBinary(type) && HEX_BYTES.test(value)) return Buffer.from(value.slice(2), "hex");
  return markedNumber(value) ?? value;
}

function mariaWriter(conn: PoolConnection, database: string, s: MariaSettings): SqlBatchWriter {
  const run = (sql: string, values: unknown[]) =>
    conn.query<ResultSetHeader>({ sql, values, timeout: s.queryTimeoutMs + 5000 }).then(([result]) => result);
  return {
    savepoint: () => run("SAVEPOINT ds_batch", []).then(() => undefined),
    rollbackToSavepoint: () => run("ROLLBACK TO SAVEPOINT ds_batch", []).then(() => undefined),
    releaseSavepoint: () => run("RELEASE SAVEPOINT ds_batch", []).then(() => undefined),
    isRecordError,
    describeError: (err) => describeMariaError(err, s),
    async writeGroup(table: TableInfo, action: WriteAction, columns: string[], records: WriteRecord[]) {
      const target = `${quoteIdent(database)}.${quoteIdent(table.name)}`;
      const misses = new Map<string, string>();
      const pkMatch = table.primaryKey.map((c) => `${quoteIdent(c)} = ?`).join(" AND ");
      const types = new Map(table.columns.map((c) => [c.name, c.type]));
      const value = (r: WriteRecord, c: string) => sqlValue(r.payload[c], types.get(c));
      if (action === "insert" || action === "upsert") {
        const row = `(${columns.map(() => "?").join(", ")})`;
        let sql = `INSERT INTO ${target} (${columns.map(quoteIdent).join(", ")}) VALUES ${records.map(() => row).join(", ")}`;
        if (action === "upsert") {
          const updates = columns.filter((c) => !table.primaryKey.includes(c)).map((c) => `${quoteIdent(c)} = VALUES(${quoteIdent(c)})`);
          // With nothing but the key to write, "update the key to itself" keeps the statement an upsert.
          if (updates.length === 0) updates.push(`${quoteIdent(table.primaryKey[0])} = ${quoteIdent(table.primaryKey[0])}`);
          sql += ` ON DUPLICATE KEY UPDATE ${updates.join(", ")}`;
        }
        await run(sql, records.flatMap((r) => columns.map((c) => value(r, c))));
        return misses;
      }
      if (action === "delete") {
        // Deleting a row that is already gone is a success: the destination ends up as asked.
        const tuple = `(${table.primaryKey.map(() => "?").join(", ")})`;
        await run(
          `DELETE FROM ${target} WHERE (${table.primaryKey.map(quoteIdent).join(", ")}) IN (${records.map(() => tuple).join(", ")})`,
          records.flatMap((r) => table.primaryKey.map((c) => value(r, c))),
        );
        return misses;
      }
      // No UPDATE … FROM VALUES in MariaDB: one statement per row, inside the same transaction.
      const setColumns = columns.filter((c) => !table.primaryKey.includes(c));
      if (setColumns.length === 0) setColumns.push(table.primaryKey[0]);
      const sql = `UPDATE ${target} SET ${setColumns.map((c) => `${quoteIdent(c)} = ?`).join(", ")} WHERE ${pkMatch}`;
      for (const r of records) {
        const result = await run(sql, [...setColumns.map((c) => value(r, c)), ...table.primaryKey.map((c) => value(r, c))]);
        // mysql2 connects with FOUND_ROWS, so affectedRows counts matched rows, changed or not.
        if (result.affectedRows === 0) misses.set(r.key, `No row in "${table.name}" has this primary key, so nothing was updated.`);
      }
      return misses;
    },
  };
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  if (records.length === 0) return [];
  let entry: PoolEntry;
  let conn: PoolConnection;
  try {
    entry = await poolFor(config);
    conn = await entry.pool.getConnection();
  } catch (err) {
    return failAll(records, err, (e) => describeMariaError(e, trySettings(config)));
  }
  const s = entry.settings;
  try {
    const table = await tableInfo(entry, conn, options.stream.name);
    await conn.query("START TRANSACTION");
    const outcomes = await writeWithIsolation(table, records, mariaWriter(conn, s.database, s));
    await conn.query("COMMIT");
    return outcomes;
  } catch (err) {
    await conn.query("ROLLBACK").catch(() => undefined);
    if (err instanceof ConnectorError) return records.map((r) => ({ key: r.key, ok: false, error: err.message, retryable: false }));
    if ((err as { errno?: number }).errno === 1146 || (err as { errno?: number }).errno === 1054) entry.tables = undefined;
    return failAll(records, err, (e) => describeMariaError(e, s));
  } finally {
    conn.release();
  }
}

/** Keys per presence statement: each is one branch with its key's placeholders. */
const PRESENCE_CHUNK = 2000;

/**
 * Which keys have a row: one index probe per key, `key = ?` with the values converted as a write
 * converts them (so the server compares exactly as the UPDATE of that key would), all in one
 * UNION ALL statement per chunk of keys.
 */
async function existingKeys(config: Row, stream: Stream, keys: Row[]): Promise<boolean[]> {
  const found = keys.map(() => false);
  if (keys.length === 0) return found;
  const entry = await poolFor(config);
  const conn = await entry.pool.getConnection();
  try {
    const table = await tableInfo(entry, conn, stream.name);
    const pk = table.primaryKey;
    if (pk.length === 0) throw new ConnectorError(`Table "${table.name}" has no primary key, so the presence of a row cannot be checked.`);
    const target = `${quoteIdent(entry.settings.database)}.${quoteIdent(table.name)}`;
    const types = new Map(table.columns.map((c) => [c.name, c.type]));
    const match = pk.map((c) => `${quoteIdent(c)} = ?`).join(" AND ");
    for (let start = 0; start < keys.length; start += PRESENCE_CHUNK) {
      const chunk = keys.slice(start, start + PRESENCE_CHUNK);
      // The index is our own integer, so it goes into the text; the key values are parameters.
      const sql = chunk.map((_, i) => `SELECT ${start + i} AS i FROM ${target} WHERE ${match}`).join(" UNION ALL ");
      const [rows] = await conn.query<(RowDataPacket & { i: number })[]>({
        sql,
        values: chunk.flatMap((k) => pk.map((c) => sqlValue(k[c], types.get(c)))),
        timeout: entry.settings.queryTimeoutMs + 5000,
      });
      for (const r of rows) found[Number(r.i)] = true;
    }
    return found;
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw new ConnectorError(describeMariaError(err, entry.settings));
  } finally {
    conn.release();
  }
}

async function discover(config: Row) {
  return described(config, () =>
    withConnection(config, async (conn, s) => {
      const tables = await listColumns(conn, s.database);
      return destinationTablesCatalog(tables.values(), s.database);
    }),
  );
}

async function close(config: Row): Promise<void> {
  const s = trySettings(config);
  if (s) await pools.close(settingsKey(s));
}

export const mariadbDestination: DestinationConnector = {
  definition: mariadbDestinationDefinition,
  check: (config) => checkMariadb(config),
  discover,
  write,
  textRows: mariadbTextUpsert,
  existingKeys,
  close,
};
