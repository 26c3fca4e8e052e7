// MariaDB destination for PostgreSQL COPY text (TextRowsDestination), the engine's pass-through path:
// LOAD DATA LOCAL INFILE from a stream of the lines, straight into the table on a first sync, else
// into a temporary staging table merged with INSERT … SELECT … ON DUPLICATE KEY UPDATE (the JSON
// path's upsert). LOAD DATA's text format is COPY's (tab, newline, backslash escapes, \N for NULL).
// LOCAL turns bad values into warnings (it cannot stop the client mid-file), so any warning, or a
// row count that differs, refuses the batch and the engine sends it again through write().
// Security: the file the server reads is the stream handed to this one query (infileStreamFactory),
// whatever name the server asks for; mysql2 refuses a LOCAL request on any other query.
import type { CopyLines } from "@/lib/db/pg-wire/line-batch";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { PoolConnection, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { Row, Stream, TextTarget } from "../types";
import { ConnectorError } from "../shared/errors";
import type { TableInfo } from "../shared/sql-catalog";
import { describeMariaError, quoteIdent, trySettings } from "./connection";
import { poolFor, tableInfo, type PoolEntry } from "./pool";

/**
 * The PostgreSQL type whose COPY text a MariaDB column takes as the JSON path's value would be
 * stored (the engine matches it against the source's); others keep their own name and match nothing.
 * Binary columns, ENUM, SET, TIME, YEAR, BIT and JSON (MariaDB's is LONGTEXT) are not here.
 */
export function textTypeOf(columnType: string): string {
  const base = columnType
    .toLowerCase()
    .replace(/\(.*?\)/g, "")
    .replace(/\b(unsigned|signed|zerofill)\b/g, "")
    .trim();
  if (["tinyint", "smallint", "mediumint", "int", "integer", "bigint"].includes(base)) return "bigint";
  if (["decimal", "numeric", "dec", "fixed"].includes(base)) return "numeric";
  if (base === "float") return "real";
  if (base === "double" || base === "double precision" || base === "real") return "double precision";
  if (base === "date") return "date";
  if (base === "datetime") return "timestamp without time zone";
  if (base === "timestamp") return "timestamp with time zone";
  if (["char", "varchar", "tinytext", "text", "mediumtext", "longtext"].includes(base)) return "text";
  return `mariadb ${base}`;
}

/** Whether the server takes LOAD DATA LOCAL and this account may create the staging table; asked once per pool. */
async function canLoad(entry: PoolEntry, conn: PoolConnection): Promise<boolean> {
  if (entry.localInfile !== undefined) return entry.localInfile;
  const [rows] = await conn.query<RowDataPacket[]>("SELECT @@local_infile AS on_");
  let ok = Number(rows[0].on_) === 1;
  if (ok) {
    ok = await conn
      .query("CREATE TEMPORARY TABLE ds_stage_probe (x INT)")
      .then(() => conn.query("DROP TEMPORARY TABLE ds_stage_probe"))
      .then(() => true)
      .catch(() => false);
  }
  entry.localInfile = ok;
  return ok;
}

async function target(config: Row, stream: Stream): Promise<TextTarget> {
  const entry = await poolFor(config);
  const conn = await entry.pool.getConnection();
  try {
    const table = await tableInfo(entry, conn, stream.name);
    return {
      columns: table.columns.map((c) => ({ name: c.name, oid: 0, type: textTypeOf(c.type) })),
      primaryKey: table.primaryKey,
      writable: table.primaryKey.length > 0 && (await canLoad(entry, conn)),
    };
  } finally {
    conn.release();
  }
}

/** PostgreSQL's escapes MariaDB does not know (\f, \v) as the characters themselves; the rest is shared. */
function forLoadData(line: string): string {
  if (!line.includes("\\") || !/\\[fv]/.test(line)) return line;
  return line.replace(/\\(.)/g, (escape, c: string) => (c === "f" ? "\f" : c === "v" ? "\v" : escape));
}

/** Lines joined with the last one's newline: one flat string (a joined text + "\n" is a two-part string encoding first copies into one). */
function joined(lines: string[]): string {
  lines.push("");
  return lines.join("\n");
}

/** The lines as the file LOAD DATA reads, in pieces of ~64 KB (no multi-megabyte string per batch). */
function fileOf(lines: readonly string[]): Readable {
  const pieces: string[] = [];
  let piece: string[] = [];
  let chars = 0;
  for (const line of lines) {
    const text = forLoadData(line);
    piece.push(text);
    chars += text.length + 1;
    if (chars >= 64 * 1024) {
      pieces.push(joined(piece));
      piece = [];
      chars = 0;
    }
  }
  if (piece.length > 0) pieces.push(joined(piece));
  // mysql2 copies Buffers into its packets: one per piece, made as the server reads.
  return Readable.from((function* () {
    for (const p of pieces) yield Buffer.from(p, "utf8");
  })());
}

/**
 * LOAD DATA of the lines into `into`. A TIMESTAMP column takes an instant: PostgreSQL writes it
 * with its zone (+00, the read's session is in UTC), which MariaDB does not parse; this session
 * runs at +00:00 too, so the zone is dropped.
 */
function loadSql(into: string, table: TableInfo, columns: readonly string[]): string {
  const types = new Map(table.columns.map((c) => [c.name, textTypeOf(c.type)]));
  const sets: string[] = [];
  const targets = columns.map((c, i) => {
    if (types.get(c) !== "timestamp with time zone") return quoteIdent(c);
    sets.push(`${quoteIdent(c)} = IF(RIGHT(@v${i}, 3) = '+00', LEFT(@v${i}, CHAR_LENGTH(@v${i}) - 3), @v${i})`);
    return `@v${i}`;
  });
  return `LOAD DATA LOCAL INFILE 'rows' INTO TABLE ${into} CHARACTER SET utf8mb4 (${targets.join(", ")})${sets.length > 0 ? ` SET ${sets.join(", ")}` : ""}`;
}

class Refused extends Error {}

/** Loads the lines; throws Refused (with the server's first warning) unless every line went in as it is. */
async function load(conn: PoolConnection, entry: PoolEntry, sql: string, lines: readonly string[]): Promise<void> {
  const [result] = await conn.query<ResultSetHeader>({ sql, infileStreamFactory: () => fileOf(lines), timeout: entry.settings.queryTimeoutMs + 5000 });
  if (result.warningStatus === 0 && result.affectedRows === lines.length) return;
  const [warnings] = await conn.query<RowDataPacket[]>("SHOW WARNINGS LIMIT 1");
  const first = warnings[0] ? String(warnings[0].Message) : `${result.affectedRows} of ${lines.length} rows were loaded`;
  throw new Refused(first);
}

/** Lines of COPY text upserted in one transaction (all or nothing). */
async function upsert(config: Row, stream: Stream, columns: readonly string[], copyLines: CopyLines, options: { likelyNew?: boolean } = {}) {
  const lines = copyLines.lines();
  let entry: PoolEntry;
  let conn: PoolConnection;
  try {
    entry = await poolFor(config);
    conn = await entry.pool.getConnection();
  } catch (err) {
    return { ok: false as const, error: describeMariaError(err, trySettings(config)) };
  }
  const db = quoteIdent(entry.settings.database);
  let stage: string | undefined;
  try {
    const table = await tableInfo(entry, conn, stream.name);
    const into = `${db}.${quoteIdent(table.name)}`;
    let keysExisted: boolean | undefined;
    if (options.likelyNew) {
      // New keys: straight into the table. A key that exists after all is skipped with a warning
      // (LOCAL's IGNORE), which undoes it, and the batch is merged instead.
      await conn.query("START TRANSACTION");
      try {
        await load(conn, entry, loadSql(into, table, columns), lines);
        keysExisted = false;
      } catch (err) {
        await conn.query("ROLLBACK");
        if (!(err instanceof Refused)) throw err;
        keysExisted = true;
      }
    }
    if (keysExisted !== false) {
      stage = quoteIdent(`ds_stage_${createHash("md5").update(JSON.stringify([table.name, columns])).digest("hex").slice(0, 16)}`);
      const cols = columns.map(quoteIdent).join(", ");
      await conn.query(`DROP TEMPORARY TABLE IF EXISTS ${stage}`);
      // The staging columns are the table's own: every value converts as it would into the table.
      await conn.query(`CREATE TEMPORARY TABLE ${stage} AS SELECT ${cols} FROM ${into} LIMIT 0`);
      await conn.query("START TRANSACTION");
      await load(conn, entry, loadSql(stage, table, columns), lines);
      const updates = columns.filter((c) => !table.primaryKey.includes(c)).map((c) => `${quoteIdent(c)} = VALUES(${quoteIdent(c)})`);
      if (updates.length === 0) updates.push(`${quoteIdent(table.primaryKey[0])} = ${quoteIdent(table.primaryKey[0])}`);
      await conn.query({
        sql: `INSERT INTO ${into} (${cols}) SELECT ${cols} FROM ${stage} ON DUPLICATE KEY UPDATE ${updates.join(", ")}`,
        timeout: entry.settings.queryTimeoutMs + 5000,
      });
    }
    await conn.query("COMMIT");
    return { ok: true as const, keysExisted };
  } catch (err) {
    await conn.query("ROLLBACK").catch(() => undefined);
    if ((err as { errno?: number }).errno === 1146 || (err as { errno?: number }).errno === 1054) entry.tables = undefined;
    const message = err instanceof Refused || err instanceof ConnectorError ? err.message : describeMariaError(err, entry.settings);
    return { ok: false as const, error: message };
  } finally {
    if (stage) await conn.query(`DROP TEMPORARY TABLE IF EXISTS ${stage}`).catch(() => undefined);
    conn.release();
  }
}

export const mariadbTextUpsert = { target, upsert };
