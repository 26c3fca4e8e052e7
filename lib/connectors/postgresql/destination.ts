// PostgreSQL destination: one stream per table; inserts, updates, upserts and deletes in
// set-based statements, bad rows isolated by the shared bisecting writer.
import { createHash } from "node:crypto";
import pg from "pg";
import { copyIn } from "@/lib/db/pg-wire/copy-in";
import type { CopyLines } from "@/lib/db/pg-wire/line-batch";
import { COPY_NULL, copyEscape, CopyInput } from "@/lib/db/pg-wire/text-copy";
import type {
  DestinationConnector,
  NewRows,
  Row,
  Stream,
  TextTarget,
  WriteAction,
  WriteOptions,
  WriteOutcome,
  WriteRecord,
} from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson, scalarText } from "../shared/values";
import { PoolCache } from "../shared/pool-cache";
import { destinationTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { failAll, keyOf, writeWithIsolation, type SqlBatchWriter } from "../shared/sql-write";
import { assertHostAllowed } from "@/lib/net/policy";
import { oneAtATime } from "@/lib/runtime/one-at-a-time";
import {
  clientConfig,
  described,
  describePgError,
  listColumns,
  pgSettings,
  quoteIdent,
  settingsKey,
  trySettings,
  withClient,
  type PgSettings,
} from "./connection";
import { postgresqlDestinationDefinition } from "./definition";
import { checkPostgresql } from "./source";

interface PoolEntry {
  pool: pg.Pool;
  settings: PgSettings;
  /** Table metadata, loaded on first write to a table and kept for the pool's life. */
  tables: Map<string, TableInfo> | undefined;
  /** The user may create temporary tables (a privilege PUBLIC has unless revoked): COPY through a stage. */
  canStage?: boolean;
}

const pools = new PoolCache<PoolEntry>();

function poolFor(config: Row): Promise<PoolEntry> {
  const settings = pgSettings(config);
  return pools.get(settingsKey(settings), async () => {
    await assertHostAllowed(settings.host, undefined, { database: settings.database });
    const pool = new pg.Pool({ ...clientConfig(settings), max: 4, idleTimeoutMillis: 30_000 });
    pool.on("error", () => undefined); // idle client lost: the next checkout reconnects
    return { pool, settings, tables: undefined };
  });
}

async function tableInfo(entry: PoolEntry, client: pg.PoolClient, name: string): Promise<TableInfo> {
  if (!entry.tables?.has(name)) entry.tables = await listColumns(client, entry.settings.schema);
  const table = entry.tables.get(name);
  if (!table) throw new ConnectorError(`Table "${entry.settings.schema}"."${name}" does not exist.`);
  return table;
}

/** Data errors (classes 22 and 23, plus bad column/type references) can be pinned on a row. */
function isRecordError(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? "";
  return /^(22|23)/.test(code) || code === "42804" || code === "21000";
}

/**
 * Rows travel as one jsonb parameter expanded by jsonb_to_recordset with the table's own column
 * types, so there is no parameter-count limit and values convert exactly as on a plain INSERT.
 */
function recordset(table: TableInfo, columns: string[]): string {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  // format_type() output comes from the catalog, so it is safe SQL for a column definition list.
  return `jsonb_to_recordset($1::jsonb) AS r(${columns.map((c) => `${quoteIdent(c)} ${types.get(c)}`).join(", ")})`;
}

/**
 * Per written column, whether it is json/jsonb (its values go in as JSON); undefined when a column is
 * an array, whose COPY syntax is PostgreSQL's array literal: those groups keep the jsonb path.
 */
function copyColumns(table: TableInfo, columns: string[]): boolean[] | undefined {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const json: boolean[] = [];
  for (const c of columns) {
    const type = types.get(c) ?? "";
    if (type.endsWith("]")) return undefined;
    json.push(type === "json" || type === "jsonb");
  }
  return json;
}

/**
 * One value in COPY text format, converted as jsonb_to_recordset would convert its JSON: json
 * columns take the value's exact JSON, other columns its text (values.ts: scalarText; NaN and the
 * infinities as PostgreSQL writes them, a number inside JSON as its digits).
 */
function copyValue(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return COPY_NULL;
  return copyEscape(json ? exactJson(value) : scalarText(value));
}

/** copyValue for a column of `type`, as write() converts it; none for arrays (copyColumns). */
function valueText(type: string): ((value: unknown) => string) | undefined {
  if (type.endsWith("]")) return undefined;
  const json = type === "json" || type === "jsonb";
  return (value) => copyValue(value, json);
}

/** The rows of `records` as COPY input for `columns` (json: copyColumns' flags), in order. */
/** A COPY's whole input, which may be sent more than once (a direct COPY refused, then staged). */
type CopySource = Pick<CopyInput, "copy">;

function copyRows(columns: string[], json: boolean[], records: WriteRecord[]): CopyInput {
  const input = new CopyInput();
  for (const r of records) {
    let line = "";
    for (let i = 0; i < columns.length; i++)
      line += (i === 0 ? "" : "\t") + copyValue(r.payload[columns[i]], json[i]);
    input.push(`${line}\n`);
  }
  return input;
}

/** A session-local table shaped like `columns` of the target, no constraints: rows are COPYed into it, then merged. */
function stageName(table: TableInfo, columns: readonly string[]): string {
  return quoteIdent(
    `ds_stage_${createHash("sha1")
      .update(JSON.stringify([table.name, columns]))
      .digest("hex")
      .slice(0, 16)}`,
  );
}

/** ON CONFLICT (key) DO UPDATE of every non-key column written (DO NOTHING when there is none). */
function upsertClause(table: TableInfo, columns: readonly string[]): string {
  const updates = columns
    .filter((c) => !table.primaryKey.includes(c))
    .map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`);
  const pk = table.primaryKey.map(quoteIdent).join(", ");
  return ` ON CONFLICT (${pk}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(", ")}` : "NOTHING"}`;
}

/**
 * COPY into a staging table and one INSERT … SELECT: about half the server time of expanding a jsonb
 * parameter, and values convert with the same input functions as a plain INSERT.
 */
async function stagedInsert(
  client: pg.PoolClient,
  schema: string,
  table: TableInfo,
  columns: readonly string[],
  conflict: string,
  input: CopySource,
): Promise<void> {
  const target = `${quoteIdent(schema)}.${quoteIdent(table.name)}`;
  const cols = columns.map(quoteIdent).join(", ");
  const stage = stageName(table, columns);
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT ${cols} FROM ${target} WITH NO DATA`);
  await input.copy(client, `COPY ${stage} (${cols}) FROM STDIN`);
  await client.query(`INSERT INTO ${target} (${cols}) SELECT ${cols} FROM ${stage}${conflict}; TRUNCATE ${stage}`);
}

/** A key that exists (23505), or a table that takes no COPY FROM (0A000: row-level security): merge instead. */
const DIRECT_COPY_REFUSED = ["23505", "0A000"];

/**
 * Direct COPYs into one table take turns in this process (each still in its own transaction). New
 * keys arrive ascending in a first sync; loaded side by side, each COPY but one inserts below the
 * index's rightmost page, so it descends from the root for every key and splits pages in half:
 * three at once cost the server about half as much CPU again as one after another (bench/README.md, (q)).
 */
const copyTurn = (s: PgSettings, target: string) => JSON.stringify(["pg-copy", s.host, s.port, s.database, target]);

/**
 * A first sync's upsert as one COPY straight into the table, half the server's work of staging and
 * merging: true when it went in; false, with nothing written and `newRows` told, when a key existed
 * or the table does not take a plain COPY (row-level security refuses COPY FROM: 0A000).
 */
async function directCopy(client: pg.PoolClient, s: PgSettings, target: string, cols: string, input: CopySource, newRows: NewRows): Promise<boolean> {
  await client.query("SAVEPOINT ds_direct");
  try {
    await oneAtATime(copyTurn(s, target), () => input.copy(client, `COPY ${target} (${cols}) FROM STDIN`));
    await client.query("RELEASE SAVEPOINT ds_direct");
    return true;
  } catch (err) {
    // A bad value is the batch's (bisection isolates it: sql-write.ts), a lost connection the write's.
    if (!DIRECT_COPY_REFUSED.includes((err as { code?: string }).code ?? "")) throw err;
    await client.query("ROLLBACK TO SAVEPOINT ds_direct");
    newRows.likely = false;
    return false;
  }
}

function pgWriter(client: pg.PoolClient, schema: string, s: PgSettings, canStage: boolean, newRows?: NewRows): SqlBatchWriter {
  return {
    savepoint: () => client.query("SAVEPOINT ds_batch").then(() => undefined),
    rollbackToSavepoint: () => client.query("ROLLBACK TO SAVEPOINT ds_batch").then(() => undefined),
    releaseSavepoint: () => client.query("RELEASE SAVEPOINT ds_batch").then(() => undefined),
    isRecordError,
    describeError: (err) => describePgError(err, s),
    async writeGroup(table: TableInfo, action: WriteAction, columns: string[], records: WriteRecord[]) {
      const target = `${quoteIdent(schema)}.${quoteIdent(table.name)}`;
      const cols = columns.map(quoteIdent).join(", ");
      const pk = table.primaryKey.map(quoteIdent);
      const misses = new Map<string, string>();
      if (action === "insert" || action === "upsert") {
        const conflict = action === "upsert" ? upsertClause(table, columns) : "";
        const json = canStage ? copyColumns(table, columns) : undefined;
        if (json) {
          // A bad value fails the COPY (class 22), so bisection still isolates it.
          const input = copyRows(columns, json, records);
          if (action === "upsert" && newRows?.likely && (await directCopy(client, s, target, cols, input, newRows))) return misses;
          await stagedInsert(client, schema, table, columns, conflict, input);
          return misses;
        }
        await client.query(
          `INSERT INTO ${target} (${cols}) SELECT ${cols} FROM ${recordset(table, columns)}${conflict}`,
          [exactJson(records.map((r) => r.payload))],
        );
        return misses;
      }
      const payload = exactJson(records.map((r) => r.payload));
      const match = pk.map((c) => `t.${c} = r.${c}`).join(" AND ");
      const returning = `RETURNING ${pk.map((c) => `t.${c}`).join(", ")}`;
      if (action === "delete") {
        // Deleting a row that is already gone is a success: the destination ends up as asked.
        await client.query(`DELETE FROM ${target} AS t USING ${recordset(table, columns)} WHERE ${match}`, [
          payload,
        ]);
        return misses;
      }
      const sets = columns
        .filter((c) => !table.primaryKey.includes(c))
        .map((c) => `${quoteIdent(c)} = r.${quoteIdent(c)}`);
      if (sets.length === 0) sets.push(`${pk[0]} = r.${pk[0]}`);
      const { rows } = await client.query(
        `UPDATE ${target} AS t SET ${sets.join(", ")} FROM ${recordset(table, columns)} WHERE ${match} ${returning}`,
        [payload],
      );
      const found = new Set(rows.map((row: Row) => keyOf(row, table.primaryKey)));
      for (const r of records) {
        if (!found.has(keyOf(r.payload, table.primaryKey)))
          misses.set(r.key, `No row in "${table.name}" has this primary key, so nothing was updated.`);
      }
      return misses;
    },
  };
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  if (records.length === 0) return [];
  let entry: PoolEntry;
  let client: pg.PoolClient;
  try {
    entry = await poolFor(config);
    client = await entry.pool.connect();
  } catch (err) {
    return failAll(records, err, (e) => describePgError(e, trySettings(config)));
  }
  const s = entry.settings;
  let broken = false;
  try {
    const table = await tableInfo(entry, client, options.stream.name);
    await client.query("BEGIN");
    entry.canStage ??= (
      await client.query<{ ok: boolean }>("SELECT has_database_privilege(current_database(), 'TEMP') AS ok")
    ).rows[0].ok;
    const outcomes = await writeWithIsolation(table, records, pgWriter(client, s.schema, s, entry.canStage, options.newRows));
    await client.query("COMMIT");
    return outcomes;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    // A missing table will not appear on retry; anything else (lost connection, timeout) may pass.
    if (err instanceof ConnectorError)
      return records.map((r) => ({ key: r.key, ok: false, error: err.message, retryable: false }));
    if ((err as { code?: string }).code === "42P01" || (err as { code?: string }).code === "42703")
      entry.tables = undefined;
    return failAll(records, err, (e) => describePgError(e, s));
  } finally {
    client.release(broken);
  }
}

/**
 * Which keys have a row: the keys as a recordset typed like the key columns, probed by the primary
 * key in one statement. A key whose value cannot be of the column's type (class 22) is bisected out:
 * it cannot be in the table.
 */
async function existingKeys(config: Row, stream: Stream, keys: Row[]): Promise<boolean[]> {
  const found = keys.map(() => false);
  if (keys.length === 0) return found;
  const entry = await poolFor(config);
  const client = await entry.pool.connect();
  try {
    const table = await tableInfo(entry, client, stream.name);
    const pk = table.primaryKey;
    if (pk.length === 0) throw new ConnectorError(`Table "${table.name}" has no primary key, so the presence of a row cannot be checked.`);
    const target = `${quoteIdent(entry.settings.schema)}.${quoteIdent(table.name)}`;
    const types = new Map(table.columns.map((c) => [c.name, c.type]));
    const columns = pk.map((c) => `${quoteIdent(c)} ${types.get(c)}`).join(", ");
    const match = pk.map((c) => `t.${quoteIdent(c)} = r.${quoteIdent(c)}`).join(" AND ");
    const sql = `SELECT r.ord::int4 AS ord FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${columns})) WITH ORDINALITY AS r(${pk.map(quoteIdent).join(", ")}, ord)
      WHERE EXISTS (SELECT 1 FROM ${target} t WHERE ${match})`;
    const probe = async (indexes: number[]): Promise<void> => {
      if (indexes.length === 0) return;
      try {
        const { rows } = await client.query<{ ord: number }>(sql, [exactJson(indexes.map((i) => keys[i]))]);
        for (const r of rows) found[indexes[r.ord - 1]] = true;
      } catch (err) {
        if (!/^22/.test((err as { code?: string }).code ?? "")) throw err;
        if (indexes.length === 1) return;
        const middle = Math.ceil(indexes.length / 2);
        await probe(indexes.slice(0, middle));
        await probe(indexes.slice(middle));
      }
    };
    await probe(keys.map((_, i) => i));
    return found;
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw new ConnectorError(describePgError(err, entry.settings));
  } finally {
    client.release();
  }
}

async function discover(config: Row) {
  return described(config, () =>
    withClient(config, async (client, s) => {
      const tables = await listColumns(client, s.schema);
      // Rows arrive through COPY, so a batch is bounded by memory, not by a statement's size.
      return destinationTablesCatalog(tables.values(), s.schema, 5000);
    }),
  );
}

/** Normalised type names: "character varying(40)" and "character varying" are one type for COPY text. */
const baseType = (type: string) => type.replace(/\(.*\)/, "");

async function textTarget(config: Row, stream: Stream): Promise<TextTarget> {
  const entry = await poolFor(config);
  const client = await entry.pool.connect();
  try {
    const table = await tableInfo(entry, client, stream.name);
    entry.canStage ??= (
      await client.query<{ ok: boolean }>("SELECT has_database_privilege(current_database(), 'TEMP') AS ok")
    ).rows[0].ok;
    return {
      columns: table.columns.map((c) => ({ name: c.name, oid: 0, type: baseType(c.type) })),
      primaryKey: table.primaryKey,
      writable: entry.canStage && table.primaryKey.length > 0,
    };
  } finally {
    client.release();
  }
}

/** Lines of COPY text upserted in one transaction through the staging table (all or nothing). */
async function upsertText(config: Row, stream: Stream, columns: readonly string[], lines: CopyLines, options: { likelyNew?: boolean } = {}) {
  let entry: PoolEntry;
  let client: pg.PoolClient;
  try {
    entry = await poolFor(config);
    client = await entry.pool.connect();
  } catch (err) {
    return { ok: false as const, error: describePgError(err, trySettings(config)) };
  }
  let broken = false;
  try {
    const table = await tableInfo(entry, client, stream.name);
    // The source's own CopyData messages where the lines are held so (line-batch.ts), sent as they are.
    const messages = lines.messages();
    const input: CopySource = { copy: (c, sql) => copyIn(c, sql, messages, true).then(() => undefined) };
    await client.query("BEGIN");
    let keysExisted: boolean | undefined;
    if (options.likelyNew) {
      // New keys: one COPY straight into the table; a key that exists after all undoes it, and the
      // batch is merged instead (so is one the table does not take by COPY).
      const target = `${quoteIdent(entry.settings.schema)}.${quoteIdent(table.name)}`;
      keysExisted = !(await directCopy(client, entry.settings, target, columns.map(quoteIdent).join(", "), input, { likely: true }));
    }
    if (keysExisted !== false) await stagedInsert(client, entry.settings.schema, table, columns, upsertClause(table, columns), input);
    await client.query("COMMIT");
    return { ok: true as const, keysExisted };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    return { ok: false as const, error: err instanceof ConnectorError ? err.message : describePgError(err, entry.settings) };
  } finally {
    client.release(broken);
  }
}

async function close(config: Row): Promise<void> {
  const s = trySettings(config);
  if (s) await pools.close(settingsKey(s));
}

export const postgresqlDestination: DestinationConnector = {
  definition: postgresqlDestinationDefinition,
  check: checkPostgresql,
  discover,
  write,
  textRows: { target: textTarget, upsert: upsertText, valueText },
  existingKeys,
  close,
};
