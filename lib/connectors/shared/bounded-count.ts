// A bounded count of a model read's rows, the same for every SQL source: the read's rows (the model
// wrapped as a subquery, narrowed by the cursor) are counted up to one past the limit, so the source
// stops at limit + 1 rows instead of counting a whole warehouse table. A planner's estimate is not
// used: it was seen off by 50× both ways.
import { MAX_ROW_COUNT_LIMIT as MAX_LIMIT } from "@/lib/settings/env/engine";
import type { BoundedCount } from "../types";

// Rows counted at most, whatever the caller asks (a count past this is not cheap anywhere): the
// same bound ENGINE_ROW_COUNT_LIMIT may be set to, so a setting is never silently lowered here.

/** The limit as a whole number in 0…MAX_LIMIT. */
export function countLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.min(MAX_LIMIT, Math.max(0, Math.floor(limit))) : 0;
}

/**
 * `SELECT count(*) AS n FROM (SELECT 1 AS one FROM <from> LIMIT limit + 1) AS bounded`. `from` is
 * the read's FROM and WHERE (the model already wrapped by `subquery()`, so its own text cannot
 * reach past it); `limit` is computed here, never taken from a person.
 */
export function boundedCountSql(from: string, limit: number): string {
  return `SELECT count(*) AS n FROM (SELECT 1 AS one FROM ${from} LIMIT ${countLimit(limit) + 1}) AS bounded`;
}

/** What the source counted, read against the limit: exact below it, "more than limit" past it. */
export function boundedCount(counted: number, limit: number): BoundedCount {
  const bound = countLimit(limit);
  if (!Number.isFinite(counted) || counted < 0) throw new Error(`A row count of ${counted} is not a count.`);
  return counted > bound ? { rows: bound, more: true } : { rows: Math.floor(counted), more: false };
}
