// node-pg sends a query without values with the simple protocol, which runs every statement in its
// text; the extended protocol runs one. Model queries (which a user writes) are sent this way.
import type pg from "pg";

/** A query config sent with the extended protocol (pg reads `queryMode`; @types/pg does not list it). */
export function oneStatement(text: string, values: unknown[] = []): pg.QueryConfig {
  return { text, values, queryMode: "extended" } as pg.QueryConfig;
}
