// Messages between isolated.ts (the server's side) and child-main.ts (the DuckDB child process).
import type { Catalog, CheckResult, FingerprintOptions, QueryResult, ReadOptions, Row } from "../types";

/** Read options as they cross the process boundary (an AbortSignal cannot: the parent kills the child). */
export type PlainReadOptions = Omit<ReadOptions, "signal">;

/**
 * `dir`: set by the server, never from a configuration: the local directory to read instead of the
 * workspace's DUCKDB_DATA_DIR one (the file layer's private copy of remote files, lib/connectors/files).
 */
export type ChildRequest = { dir?: string } & (
  | { op: "check"; config: Row }
  | { op: "discover"; config: Row }
  | { op: "query"; config: Row; sql: string; limit: number }
  | { op: "read"; config: Row; options: PlainReadOptions }
  | { op: "readFingerprinted"; config: Row; options: PlainReadOptions & { fingerprint: FingerprintOptions } }
);

export type ChildReply =
  | { type: "result"; value: CheckResult | Catalog | QueryResult }
  | { type: "rows"; rows: Row[] }
  | { type: "fingerprinted"; keyValues: unknown[]; fingerprints: string[]; rows: Row[] }
  | { type: "end" }
  /** `connector`: the message is a sentence for the user (a ConnectorError), else an internal failure. */
  | { type: "error"; message: string; connector: boolean };
