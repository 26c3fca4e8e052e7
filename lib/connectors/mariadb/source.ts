// MariaDB source: previews and streaming reads of model queries, read-only.
import { hash } from "node:crypto";
import { Types, type FieldPacket } from "mysql2";
import type { Connection, RowDataPacket } from "mysql2/promise";
import type { CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { inBatches } from "../shared/batching";
import { asConnectorError, ConnectorError, safeCheck } from "../shared/errors";
import { sourceTablesCatalog } from "../shared/sql-catalog";
import { jsonSafeRow, modelSelect, subquery } from "../shared/sql";
import { mariadbTextRows } from "./text-rows";
import { mariaQueryError } from "../shared/sql-position";
import {
  connectStreaming,
  described,
  incrementalQuery,
  describeMariaError,
  listColumns,
  mariaSettings,
  trySettings,
  withConnection,
  type MariaSettings,
} from "./connection";
import { mariadbSourceDefinition } from "./definition";

/**
 * A sentence (with a leading space) when the account holds SUPER or FILE on every database (ALL
 * PRIVILEGES included): FILE lets LOAD_FILE read the server's files, so whoever may write this
 * workspace's models would hold it too. "" otherwise.
 */
async function serverFileWarning(conn: Connection, user: string, timeout: number): Promise<string> {
  const [rows] = await conn.query<RowDataPacket[]>({ sql: "SHOW GRANTS FOR CURRENT_USER()", timeout, rowsAsArray: true });
  const global = rows.map((r) => String(r[0])).filter((g) => /^GRANT .+ ON \*\.\* TO /i.test(g));
  const held = ["ALL PRIVILEGES", "SUPER", "FILE"].filter((p) => global.some((g) => new RegExp(`^GRANT (.*, )?${p}(,| ON )`, "i").test(g)));
  if (held.length === 0) return "";
  return ` Warning: "${user}" holds ${held.join(" and ")} on every database, so anyone who may write this workspace's models can read the database server's files through it (LOAD_FILE); connect with an account that can only read the tables the models need.`;
}

/** Shared with the destination, which never runs a model query and so gets no warning. */
export async function checkMariadb(config: Row, warnServerFiles = false): Promise<CheckResult> {
  let settings: MariaSettings | undefined;
  return safeCheck(
    mariadbSourceDefinition,
    config,
    () =>
      withConnection(config, async (conn, s) => {
        settings = s;
        const [rows] = await conn.query<RowDataPacket[]>({ sql: "SELECT VERSION() AS version", timeout: s.queryTimeoutMs });
        const warning = warnServerFiles ? await serverFileWarning(conn, s.user, s.queryTimeoutMs) : "";
        return { ok: true, details: `Connected to MariaDB ${rows[0].version} at ${s.host}:${s.port}, database "${s.database}".${warning}` };
      }),
    (err) => describeMariaError(err, settings ?? trySettings(config)),
  );
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  const inner = modelSelect(sql, "mariadb");
  return described(config, () =>
    withConnection(config, async (conn, s) => {
      await conn.query("SET SESSION max_statement_time = ?", [s.queryTimeoutMs / 1000]);
      await conn.query("START TRANSACTION READ ONLY");
      try {
        const [rows, fields] = await conn
          .query<RowDataPacket[]>({
            sql: `SELECT * FROM ${subquery(inner)} AS q LIMIT ?`,
            values: [Math.max(0, Math.floor(limit))],
            timeout: s.queryTimeoutMs + 5000,
          })
          .catch((err: unknown) => {
            // A syntax error names the wrapped text; say where in the user's query it is.
            throw mariaQueryError(err, sql, inner, "\n) AS q", (e) => describeMariaError(e, s));
          });
        return {
          columns: fields.map((f) => ({ name: f.name, type: typeName(f.columnType) })),
          rows: rows.map((r) => jsonSafeRow({ ...r })),
        };
      } finally {
        await conn.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

/** mysql2 reports column types as protocol numbers; name the common ones. */
const TYPE_NAMES: Record<number, string> = {
  0: "decimal", 1: "tinyint", 2: "smallint", 3: "int", 4: "float", 5: "double", 7: "timestamp", 8: "bigint",
  9: "mediumint", 10: "date", 11: "time", 12: "datetime", 13: "year", 15: "varchar", 16: "bit", 245: "json",
  246: "decimal", 247: "enum", 248: "set", 249: "tinyblob", 250: "mediumblob", 251: "longblob", 252: "blob",
  253: "varchar", 254: "char",
};

function typeName(columnType: number | undefined): string {
  return columnType === undefined ? "unknown" : (TYPE_NAMES[columnType] ?? String(columnType));
}

/**
 * Streams the model's rows in batches. `bigintDigits` reads BIGINT columns as their digits and
 * reports their names to `onBigints` before the first batch.
 */
async function* readBatches(
  config: Row,
  options: ReadOptions,
  bigintDigits?: { onBigints: (columns: string[]) => void },
): AsyncGenerator<Row[]> {
  const s = mariaSettings(config);
  const { sql, values } = incrementalQuery(options);
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const conn = await connectStreaming(s).catch((err: unknown) => {
    throw asConnectorError(err, (e) => describeMariaError(e, s));
  });
  try {
    await new Promise<void>((resolve, reject) => conn.query("START TRANSACTION READ ONLY", (err) => (err ? reject(err) : resolve())));
    const query = conn.query({ sql, values, ...(bigintDigits ? { bigNumberStrings: true } : {}) });
    if (bigintDigits) {
      query.on("fields", (fields: FieldPacket[]) =>
        bigintDigits.onBigints(fields.filter((f) => f.columnType === Types.LONGLONG).map((f) => f.name)),
      );
    }
    // The stream pauses the socket when we stop pulling, so at most about one batch is buffered.
    const rows = query.stream({ highWaterMark: batchSize }) as AsyncIterable<Row>;
    const batches = inBatches(rows, batchSize, {
      signal: options.signal,
      idleTimeoutMs: s.queryTimeoutMs,
      onIdle: () => new ConnectorError(`The query did not return rows within ${s.queryTimeoutMs / 1000} s.`),
    });
    for await (const batch of batches) yield batch.map((r) => jsonSafeRow({ ...r }));
  } catch (err) {
    throw asConnectorError(err, (e) => describeMariaError(e, s));
  } finally {
    // destroy(), not end(): end() would wait for an abandoned result set to drain.
    conn.destroy();
  }
}

function read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  return readBatches(config, options);
}

/** A BIGINT's digits as read() gives them: a number when exact, else the digits. */
function bigintValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

/**
 * The rows of read(), each fingerprinted as md5(seed + its JSON with BIGINT values as their digits):
 * exactly what the engine hashed for MariaDB rows while BIGINT columns were read as strings, so the
 * change-tracking states stored then still match and BIGINT becoming a number re-sends no row.
 */
async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  let bigints: string[] = [];
  const { seed, primaryKey } = options.fingerprint;
  for await (const rows of readBatches(config, options, { onBigints: (columns) => (bigints = columns) })) {
    const keyIsBigint = bigints.includes(primaryKey);
    const columns = bigints;
    yield {
      length: rows.length,
      keyValues: rows.map((r) => (keyIsBigint ? bigintValue(r[primaryKey]) : r[primaryKey])),
      fingerprints: rows.map((r) => hash("md5", seed + JSON.stringify(r))),
      row(index: number): Row {
        const row = { ...rows[index] };
        for (const c of columns) row[c] = bigintValue(row[c]);
        return row;
      },
    };
  }
}

async function discover(config: Row) {
  return described(config, () =>
    withConnection(config, async (conn, s) => {
      const tables = await listColumns(conn, s.database);
      return sourceTablesCatalog(tables.values(), s.database);
    }),
  );
}

export const mariadbSource: SourceConnector = {
  definition: mariadbSourceDefinition,
  check: (config) => checkMariadb(config, true),
  discover,
  query,
  checkQuery: (query) => void modelSelect(query, "mariadb"),
  read,
  readFingerprinted,
  textRows: mariadbTextRows,
};
