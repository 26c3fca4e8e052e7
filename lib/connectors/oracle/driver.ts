// The boundary between the Oracle connectors and their driver: the connectors build SQL text and
// binds and call these methods; the real implementation below hands them to node-oracledb in thin
// mode (pure JavaScript, no Oracle client libraries). Tests put a recording fake behind the same
// interface, since no Oracle server runs here.
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { Row } from "../types";
import { guardedLookup } from "@/lib/net/policy";
import { lazyModule } from "../shared/lazy-module";
import { serviceName, type OracleSettings } from "./settings";

/** How an executeMany position is bound: text (converted in SQL), a CLOB, or bytes. */
export interface OracleBindDef {
  type: "STRING" | "CLOB" | "BUFFER" | "BLOB";
  /** Longest value of the batch (oracledb sizes its buffers by it). */
  maxSize: number;
}

export interface OracleBatchError {
  /** Index of the failed bind row. */
  offset: number;
  errorNum: number;
  message: string;
}

export interface OracleBatchResult {
  /** Per bind row, the rows it changed. */
  dmlRowCounts: number[];
  batchErrors: OracleBatchError[];
}

/** A result column as the driver describes it. */
export interface OracleColumn {
  name: string;
  /** Oracle's type name: NUMBER, VARCHAR2, DATE, TIMESTAMP, TIMESTAMP WITH TIME ZONE, BINARY_DOUBLE, CLOB, RAW… */
  type: string;
  precision?: number;
  scale?: number;
}

/**
 * An open cursor. NUMBER, DATE and TIMESTAMP values arrive as text (in the session's formats, see
 * SESSION_SETUP), CLOBs as text, BLOB and RAW as Buffers, BINARY_DOUBLE as numbers.
 */
export interface OracleCursor {
  columns: OracleColumn[];
  /** Up to `count` rows (arrays in column order); fewer, or none, at the end. */
  getRows(count: number): Promise<unknown[][]>;
  close(): Promise<void>;
}

export interface OracleSession {
  serverVersion: string;
  /** One statement with positional binds (:1, :2…); rows as objects by column name. */
  execute(sql: string, binds?: unknown[]): Promise<{ rows: Row[]; rowsAffected: number }>;
  /** One DML statement run once per bind row; data errors are reported per row (batchErrors), not thrown. */
  executeMany(sql: string, rows: unknown[][], bindDefs: OracleBindDef[]): Promise<OracleBatchResult>;
  /** A cursor fetching `fetchArraySize` rows per round trip. */
  openCursor(sql: string, binds: unknown[], fetchArraySize: number): Promise<OracleCursor>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Interrupts the statement running now (a cancel's break). */
  interrupt(): Promise<void>;
  close(): Promise<void>;
}

export interface OracleDriver {
  open(settings: OracleSettings): Promise<OracleSession>;
}

/**
 * Every session's formats: text in and out is ISO 8601 in UTC, and the decimal separator is a
 * point, whatever the server's or the user's NLS defaults.
 */
export const SESSION_SETUP = [
  `ALTER SESSION SET TIME_ZONE = 'UTC' NLS_NUMERIC_CHARACTERS = '.,'` +
    ` NLS_DATE_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS' NLS_TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.FF9'` +
    ` NLS_TIMESTAMP_TZ_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM'`,
];

/** The part of node-oracledb's module the real driver uses. */
interface OracleDbModule {
  getConnection(options: Record<string, unknown>): Promise<OracleDbConnection>;
  [constant: string]: unknown;
}
interface OracleDbConnection {
  oracleServerVersionString: string;
  callTimeout: number;
  execute(sql: string, binds: unknown[], options?: Record<string, unknown>): Promise<{ rows?: unknown[]; rowsAffected?: number; resultSet?: OracleDbResultSet; metaData?: OracleDbMeta[] }>;
  executeMany(sql: string, binds: unknown[][], options: Record<string, unknown>): Promise<{ dmlRowCounts?: number[]; batchErrors?: { offset: number; errorNum: number; message: string }[] }>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  break(): Promise<void>;
  close(): Promise<void>;
}
interface OracleDbResultSet {
  getRows(count: number): Promise<unknown[][]>;
  close(): Promise<void>;
}
interface OracleDbMeta {
  name: string;
  dbTypeName?: string;
  dbType?: unknown;
  precision?: number;
  scale?: number;
}

const oracleModule = lazyModule(async () => {
  const imported = (await import("oracledb")) as { default?: OracleDbModule } & OracleDbModule;
  return imported.default ?? imported;
});

/** The host's address, resolved once and checked by the outbound policy: the connection goes to exactly it. */
export function allowedAddress(host: string, database: string): Promise<string> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const lookup = guardedLookup(undefined, { database });
  return new Promise((resolve, reject) =>
    lookup(bare, { all: false }, (err, address: string | LookupAddress[]) => (err ? reject(err) : resolve(typeof address === "string" ? address : address[0].address))),
  );
}

/** `host:port/service` (IPv6 in brackets), Easy Connect as the reference writes it; the service checked again here, where it is used. */
export function connectString(address: string, port: number, service: string): string {
  return `${isIP(address) === 6 ? `[${address}]` : address}:${port}/${serviceName(service)}`;
}

/** node-oracledb, thin mode (the default: initOracleClient is never called). */
export const oracleDriver: OracleDriver = {
  async open(s) {
    const oracledb = await oracleModule.load();
    const address = await allowedAddress(s.host, s.service);
    const connection = await oracledb.getConnection({
      user: s.user,
      password: s.password,
      connectString: connectString(address, s.port, s.service),
      connectTimeout: Math.max(1, Math.round(s.connectTimeoutMs / 1000)),
    });
    try {
      // Every round trip is bounded by the query timeout (thin mode's callTimeout).
      connection.callTimeout = s.queryTimeoutMs;
      for (const sql of SESSION_SETUP) await connection.execute(sql, []);
    } catch (err) {
      await connection.close().catch(() => undefined);
      throw err;
    }
    const asText = new Set([oracledb.DB_TYPE_NUMBER, oracledb.DB_TYPE_DATE, oracledb.DB_TYPE_TIMESTAMP, oracledb.DB_TYPE_TIMESTAMP_TZ, oracledb.DB_TYPE_TIMESTAMP_LTZ, oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_JSON]);
    const fetchTypeHandler = (meta: OracleDbMeta) => (asText.has(meta.dbType) ? { type: oracledb.STRING } : meta.dbType === oracledb.DB_TYPE_BLOB ? { type: oracledb.BUFFER } : undefined);
    const dbTypes: Record<OracleBindDef["type"], unknown> = { STRING: oracledb.DB_TYPE_VARCHAR, CLOB: oracledb.DB_TYPE_CLOB, BUFFER: oracledb.DB_TYPE_RAW, BLOB: oracledb.DB_TYPE_BLOB };
    return {
      serverVersion: connection.oracleServerVersionString,
      async execute(sql, binds = []) {
        const result = await connection.execute(sql, binds, { outFormat: oracledb.OUT_FORMAT_OBJECT, fetchTypeHandler });
        return { rows: (result.rows ?? []) as Row[], rowsAffected: result.rowsAffected ?? 0 };
      },
      async executeMany(sql, rows, bindDefs) {
        const result = await connection.executeMany(sql, rows, {
          bindDefs: bindDefs.map((d) => ({ type: dbTypes[d.type], maxSize: Math.max(1, d.maxSize) })),
          batchErrors: true,
          dmlRowCounts: true,
          autoCommit: false,
        });
        return { dmlRowCounts: result.dmlRowCounts ?? [], batchErrors: result.batchErrors ?? [] };
      },
      async openCursor(sql, binds, fetchArraySize) {
        const result = await connection.execute(sql, binds, { resultSet: true, fetchArraySize, outFormat: oracledb.OUT_FORMAT_ARRAY, fetchTypeHandler });
        const resultSet = result.resultSet as OracleDbResultSet;
        return {
          columns: (result.metaData ?? []).map((m) => ({ name: m.name, type: m.dbTypeName ?? "VARCHAR2", precision: m.precision, scale: m.scale })),
          getRows: (count) => resultSet.getRows(count),
          close: () => resultSet.close(),
        };
      },
      commit: () => connection.commit(),
      rollback: () => connection.rollback(),
      interrupt: () => connection.break(),
      close: () => connection.close(),
    };
  },
};
