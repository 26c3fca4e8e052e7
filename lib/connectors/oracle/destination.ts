// Oracle destination: one DML statement per action and column list, run for the whole batch with
// executeMany (bind arrays); Oracle reports each row's data error on its own (batchErrors), so a
// bad row fails alone while the others are written in the same transaction. Upserts are MERGE by
// primary key. Tested up to the driver's call only: no Oracle server runs here (docs/connectors/oracle.md).
import type { Catalog, CheckResult, DestinationConnector, Row, WriteAction, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { ConnectorError, safeCheck, withDescribedErrors } from "../shared/errors";
import { destinationTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { failAll, writeWithIsolation, type SqlBatchWriter } from "../shared/sql-write";
import { oracleDriver, type OracleBindDef, type OracleDriver, type OracleSession } from "./driver";
import { describeOracleError, isRecordError } from "./errors";
import { oracleDestinationDefinition } from "./definition";
import { listTables } from "./catalog";
import { checkSession, openSession, quoteIdent, withSession } from "./session";
import { oracleSettings, tryOracleSettings, type OracleSettings } from "./settings";
import { bindValue, ValueRefused, type OracleBound } from "./values";

/** The statement of one action over `columns` (positional binds :1…:n in `columns` order, keys for delete). */
export function dmlStatement(owner: string, table: TableInfo, action: WriteAction, columns: string[], bound: OracleBound[]): string {
  const target = `${quoteIdent(owner)}.${quoteIdent(table.name)}`;
  const pk = table.primaryKey;
  const at = (c: string) => bound[columns.indexOf(c)].expression(`:${columns.indexOf(c) + 1}`);
  const nonKey = columns.filter((c) => !pk.includes(c));
  switch (action) {
    case "insert":
      return `INSERT INTO ${target} (${columns.map(quoteIdent).join(", ")}) VALUES (${columns.map(at).join(", ")})`;
    case "upsert": {
      const source = columns.map((c) => `${at(c)} AS ${quoteIdent(c)}`).join(", ");
      const match = pk.map((c) => `t.${quoteIdent(c)} = s.${quoteIdent(c)}`).join(" AND ");
      return (
        `MERGE INTO ${target} t USING (SELECT ${source} FROM DUAL) s ON (${match})` +
        (nonKey.length > 0 ? ` WHEN MATCHED THEN UPDATE SET ${nonKey.map((c) => `t.${quoteIdent(c)} = s.${quoteIdent(c)}`).join(", ")}` : "") +
        ` WHEN NOT MATCHED THEN INSERT (${columns.map(quoteIdent).join(", ")}) VALUES (${columns.map((c) => `s.${quoteIdent(c)}`).join(", ")})`
      );
    }
    case "update": {
      const sets = (nonKey.length > 0 ? nonKey : [pk[0]]).map((c) => `${quoteIdent(c)} = ${at(c)}`);
      return `UPDATE ${target} SET ${sets.join(", ")} WHERE ${pk.map((c) => `${quoteIdent(c)} = ${at(c)}`).join(" AND ")}`;
    }
    case "delete":
      return `DELETE FROM ${target} WHERE ${pk.map((c) => `${quoteIdent(c)} = ${at(c)}`).join(" AND ")}`;
  }
}

/** The bind rows of `records` and their bind definitions; records with a value their column cannot hold are left out, with the reason. */
export function bindRows(table: TableInfo, columns: string[], records: WriteRecord[]) {
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const refused = new Map<string, string>();
  const rows: unknown[][] = [];
  const kept: WriteRecord[] = [];
  let sample: OracleBound[] | undefined;
  const defs: OracleBindDef[] = columns.map(() => ({ type: "STRING", maxSize: 1 }));
  for (const r of records) {
    try {
      const bound = columns.map((c) => bindValue(c, types.get(c) ?? "VARCHAR2", r.payload[c]));
      sample ??= bound;
      bound.forEach((b, i) => {
        defs[i].type = b.bind;
        const size = b.value === null ? 0 : Buffer.isBuffer(b.value) ? b.value.length : Buffer.byteLength(b.value);
        defs[i].maxSize = Math.max(defs[i].maxSize, size);
      });
      rows.push(bound.map((b) => b.value));
      kept.push(r);
    } catch (err) {
      if (!(err instanceof ValueRefused)) throw err;
      refused.set(r.key, err.message);
    }
  }
  // The SQL's conversions depend on the column types only, so any row's bindings describe them all.
  const expressions = sample ?? columns.map((c) => bindValue(c, types.get(c) ?? "VARCHAR2", null));
  return { rows, kept, refused, defs, expressions };
}

function oracleWriter(session: OracleSession, s: OracleSettings): SqlBatchWriter {
  return {
    savepoint: () => session.execute("SAVEPOINT ds_batch").then(() => undefined),
    rollbackToSavepoint: () => session.execute("ROLLBACK TO SAVEPOINT ds_batch").then(() => undefined),
    // Oracle has no RELEASE SAVEPOINT: a save point ends with its transaction.
    releaseSavepoint: () => Promise.resolve(),
    isRecordError,
    describeError: (err) => describeOracleError(err, s),
    async writeGroup(table, action, columns, records) {
      const cols = action === "delete" ? table.primaryKey : columns;
      const { rows, kept, refused, defs, expressions } = bindRows(table, cols, records);
      const misses = new Map(refused);
      if (rows.length === 0) return misses;
      const result = await session.executeMany(dmlStatement(s.owner, table, action, cols, expressions), rows, defs);
      for (const e of result.batchErrors) {
        const record = kept[e.offset];
        // node-oracledb gives Error objects; the boundary promises only their number and message.
        if (record) misses.set(record.key, describeOracleError(Object.assign(new Error(e.message), { errorNum: e.errorNum }), s));
      }
      if (action === "update") {
        kept.forEach((r, i) => {
          if (!misses.has(r.key) && result.dmlRowCounts[i] === 0) misses.set(r.key, `No row in "${table.name}" has this primary key, so nothing was updated.`);
        });
      }
      return misses;
    },
  };
}

/** The Oracle destination over a driver (the real one, or a test's fake). */
export function oracleDestinationWith(driver: OracleDriver): DestinationConnector {
  async function check(config: Row): Promise<CheckResult> {
    return safeCheck(oracleDestinationDefinition, config, () => withSession(driver, config, checkSession), (err) => describeOracleError(err, tryOracleSettings(config)));
  }

  async function discover(config: Row): Promise<Catalog> {
    return withDescribedErrors(
      () => withSession(driver, config, async (session, s) => destinationTablesCatalog((await listTables(session, s.owner, false)).values(), s.owner)),
      (err) => describeOracleError(err, tryOracleSettings(config)),
    );
  }

  async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
    if (records.length === 0) return [];
    let s: OracleSettings;
    let session: OracleSession;
    try {
      s = oracleSettings(config);
      session = await openSession(driver, s);
    } catch (err) {
      return failAll(records, err, (e) => describeOracleError(e, tryOracleSettings(config)));
    }
    // A canceled run breaks the statement in flight.
    const interrupt = () => void session.interrupt().catch(() => undefined);
    options.signal?.addEventListener("abort", interrupt, { once: true });
    try {
      const table = (await listTables(session, s.owner, false)).get(options.stream.name);
      if (!table) throw new ConnectorError(`Table "${s.owner}"."${options.stream.name}" does not exist.`);
      const outcomes = await writeWithIsolation(table, records, oracleWriter(session, s));
      await session.commit();
      return outcomes;
    } catch (err) {
      await session.rollback().catch(() => undefined);
      if (err instanceof ConnectorError) return records.map((r) => ({ key: r.key, ok: false, error: err.message, retryable: false }));
      return failAll(records, err, (e) => describeOracleError(e, s));
    } finally {
      options.signal?.removeEventListener("abort", interrupt);
      await session.close().catch(() => undefined);
    }
  }

  return { definition: oracleDestinationDefinition, check, discover, write };
}

export const oracleDestination = oracleDestinationWith(oracleDriver);
