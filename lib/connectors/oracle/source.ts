// Oracle source: model queries (one SELECT, checked by shared/sql.ts) read in a read-only
// transaction through a cursor that fetches a batch per round trip (fetchArraySize), so a read never
// holds more than a batch; incremental reads narrow by the cursor column and order by it. Tested up
// to the driver's call only: no Oracle server runs here (docs/connectors/oracle.md).
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { throwIfAborted } from "../shared/batching";
import { safeCheck, withDescribedErrors } from "../shared/errors";
import { sourceTablesCatalog } from "../shared/sql-catalog";
import { modelSelect, subquery } from "../shared/sql";
import { oracleDriver, type OracleColumn, type OracleCursor, type OracleDriver } from "./driver";
import { describeOracleError } from "./errors";
import { oracleSourceDefinition } from "./definition";
import { listTables } from "./catalog";
import { checkSession, openSession, quoteIdent, withSession } from "./session";
import { oracleSettings, tryOracleSettings } from "./settings";
import { readValue, TIMESTAMP_TZ_FORMAT } from "./values";

const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The stored cursor value as a bind and the SQL that converts it: an instant as TIMESTAMP WITH TIME
 * ZONE (Oracle compares DATE and TIMESTAMP columns to it in the session's UTC), a number as NUMBER,
 * anything else as text.
 */
export function cursorBind(value: string): { value: string; expression: string } {
  const m = ISO_INSTANT.exec(value);
  if (m) {
    const [, day, time, fraction = "", zone = "Z"] = m;
    const offset = zone === "Z" ? "+00:00" : `${zone.replace(":", "").slice(0, 3)}:${zone.replace(":", "").slice(3, 5)}`;
    return { value: `${day}T${time}.${fraction.padEnd(9, "0")}${offset}`, expression: `TO_TIMESTAMP_TZ(:1, '${TIMESTAMP_TZ_FORMAT}')` };
  }
  if (/^-?\d+(\.\d+)?$/.test(value)) return { value, expression: "TO_NUMBER(:1)" };
  return { value, expression: ":1" };
}

/** The statement a read runs and its binds: the model as a subquery, narrowed and ordered by the cursor column. */
export function readStatement(options: Pick<ReadOptions, "query" | "cursorField" | "cursorValue">): { sql: string; binds: string[] } {
  const model = `SELECT * FROM ${subquery(modelSelect(options.query, "oracle"))} ds_model`;
  if (!options.cursorField) return { sql: model, binds: [] };
  const cursor = `ds_model.${quoteIdent(options.cursorField)}`;
  if (options.cursorValue === null || options.cursorValue === undefined || options.cursorValue === "") {
    return { sql: `${model} ORDER BY ${cursor}`, binds: [] };
  }
  const bind = cursorBind(options.cursorValue);
  return { sql: `${model} WHERE ${cursor} >= ${bind.expression} ORDER BY ${cursor}`, binds: [bind.value] };
}

function toRows(columns: OracleColumn[], rows: unknown[][]): Row[] {
  return rows.map((values) => {
    const row: Row = {};
    columns.forEach((c, i) => (row[c.name] = readValue(c, values[i])));
    return row;
  });
}

/** The Oracle source over a driver (the real one, or a test's fake). */
export function oracleSourceWith(driver: OracleDriver): SourceConnector {
  const described = <T>(config: Row, fn: () => Promise<T>) => withDescribedErrors(fn, (err) => describeOracleError(err, tryOracleSettings(config)));

  async function check(config: Row): Promise<CheckResult> {
    return safeCheck(oracleSourceDefinition, config, () => withSession(driver, config, checkSession), (err) => describeOracleError(err, tryOracleSettings(config)));
  }

  async function discover(config: Row): Promise<Catalog> {
    return described(config, () => withSession(driver, config, async (session, s) => sourceTablesCatalog((await listTables(session, s.owner, true)).values(), s.owner)));
  }

  async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
    const model = modelSelect(sql, "oracle");
    return described(config, () =>
      withSession(driver, config, async (session) => {
        await session.execute("SET TRANSACTION READ ONLY");
        try {
          const cursor = await session.openCursor(`SELECT * FROM ${subquery(model)} ds_model FETCH FIRST :1 ROWS ONLY`, [limit], Math.max(1, limit));
          try {
            const rows = await cursor.getRows(limit);
            return { columns: cursor.columns.map((c) => ({ name: c.name, type: c.type })), rows: toRows(cursor.columns, rows) };
          } finally {
            await cursor.close().catch(() => undefined);
          }
        } finally {
          await session.rollback().catch(() => undefined);
        }
      }),
    );
  }

  async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
    const { sql, binds } = readStatement(options);
    const s = await described(config, async () => oracleSettings(config));
    const session = await described(config, () => openSession(driver, s));
    const interrupt = () => void session.interrupt().catch(() => undefined);
    options.signal?.addEventListener("abort", interrupt, { once: true });
    let cursor: OracleCursor | undefined;
    try {
      await described(config, () => session.execute("SET TRANSACTION READ ONLY"));
      cursor = await described(config, () => session.openCursor(sql, binds, options.batchSize));
      for (;;) {
        throwIfAborted(options.signal);
        const open = cursor;
        const rows = await described(config, () => open.getRows(options.batchSize));
        if (rows.length === 0) return;
        yield toRows(open.columns, rows);
        if (rows.length < options.batchSize) return;
      }
    } finally {
      options.signal?.removeEventListener("abort", interrupt);
      await cursor?.close().catch(() => undefined);
      await session.rollback().catch(() => undefined);
      await session.close().catch(() => undefined);
    }
  }

  return {
    definition: oracleSourceDefinition,
    check,
    discover,
    query,
    checkQuery: (q) => void modelSelect(q, "oracle"),
    read,
  };
}

export const oracleSource = oracleSourceWith(oracleDriver);
