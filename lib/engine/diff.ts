// Change detection: a fingerprint per row (md5 of its JSON, seeded with the sync's mapping so a
// mapping change re-sends rows) and a set-wise classification of a whole batch against its states
// (sync_states rows and state blocks: state-blocks.ts) in one query.
import "server-only";
import { hash } from "node:crypto";
import { sql } from "kysely";
import type { Pool } from "pg";
import { statesOf } from "@/lib/db/declared-relations";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import { hexOf, type Fingerprints } from "./fingerprints";
import { tracksAnything } from "./state-blocks";
import type { PendingFilter } from "./unchanged-filter";

/** JSON with object keys sorted at every depth, so the same row always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value === undefined ? null : value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const v = (value as Record<string, unknown>)[keys[i]];
    if (v === undefined) continue;
    if (out.length > 1) out += ",";
    out += `${JSON.stringify(keys[i])}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/**
 * One-shot md5 (several times cheaper per row than createHash) of the seed and the row's JSON; a
 * whole batch's at once: fingerprints.ts (the same digests, cheaper still).
 * Sources with readFingerprinted hash rows themselves (PostgreSQL: md5 of the seed and the row's
 * `row_to_json` text); a source always takes the same path, so the two kinds never meet in a sync.
 */
export function fingerprint(seed: string, rowJson: string): string {
  return hash("md5", seed + rowJson);
}

/**
 * The row as JSON, in the order the source returned its columns: a query returns them in the same
 * order every time, and the native serializer is far cheaper than sorting keys per row. (A change of
 * column order re-sends each row once, like a mapping change.)
 */
export function rowJson(row: Record<string, unknown>): string {
  return JSON.stringify(row);
}

/** The primary key as text; null means the row cannot be tracked (keyText). */
export function primaryKeyOf(row: Record<string, unknown>, column: string): string | null {
  return keyText(row[column]);
}

/**
 * A primary key column's value as text; null when blank (null, undefined, only spaces) or holding a
 * NUL character, which no PostgreSQL text can store: such a key cannot be tracked, so its row is
 * skipped and counted like a blank key instead of failing every run of the sync.
 */
export function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.trim() === "" || text.includes("\u0000") ? null : text;
}

/** i: insert, u: update, d: already recorded by this run (a retried attempt). Unchanged rows are omitted. */
export type DiffClass = "i" | "u" | "d";

/** A batch's classification: rows missing from `classes` are unchanged. */
export interface BatchDiff {
  classes: Map<number, DiffClass>;
  /**
   * Rows classed "u" only because their fingerprint differs from the one of their last successful
   * delivery: that stored fingerprint. Lets a source that fingerprints rows itself recognise a state
   * still holding the engine's own fingerprint of the same row (see batch-diff.ts and run-store.ts:rebaselineStates).
   */
  storedFingerprints: Map<number, string>;
}

/**
 * Classifies a batch: rows the `unchanged` filter knows (a full re-read) are unchanged without a
 * query; the others are probed as below.
 */
export async function classifyBatch(
  pool: Pool,
  args: ClassifyArgs & { unchanged?: PendingFilter },
): Promise<BatchDiff> {
  const unchanged = await args.unchanged;
  if (!unchanged || args.fullRefresh) return probeBatch(pool, { ...args, fingerprints: hexOf(args.fingerprints) });
  const rest: number[] = [];
  for (let i = 0; i < args.fingerprints.length; i++) if (!unchanged.hasAt(args.fingerprints, i)) rest.push(i);
  if (rest.length === args.keys.length) return probeBatch(pool, { ...args, fingerprints: hexOf(args.fingerprints) });
  const diff: BatchDiff =
    rest.length === 0
      ? { classes: new Map(), storedFingerprints: new Map() }
      : await probeBatch(pool, { ...args, keys: rest.map((i) => args.keys[i]), fingerprints: hexOf(args.fingerprints, rest) });
  // Back to the batch's own positions.
  const classes = new Map<number, DiffClass>();
  const storedFingerprints = new Map<number, string>();
  for (const [at, c] of diff.classes) classes.set(rest[at], c);
  for (const [at, fp] of diff.storedFingerprints) storedFingerprints.set(rest[at], fp);
  return { classes, storedFingerprints };
}

interface ClassifyArgs<F = Fingerprints> {
  syncId: number;
  runId: number;
  keys: string[];
  fingerprints: F;
  fullRefresh: boolean;
}

/**
 * Classifies a batch in one statement. A state with fingerprint '' was never delivered (its insert
 * failed), so it is an insert again, as is a changed row the write mode skipped (unchanged, it is left alone); a failed last status is retried as an update; full refresh
 * re-sends every row.
 */
async function probeBatch(pool: Pool, args: ClassifyArgs<string[]>): Promise<BatchDiff> {
  // Keys and fingerprints travel as JSON arrays, serialised natively, where a text[] parameter is
  // escaped element by element in JavaScript. (Not one long string cut with substr(): on a UTF-8
  // database each substr() walks the string from its start.)
  const keys = JSON.stringify(args.keys);
  const batch = sql<{ pk: string; fp: string; ord: string }>`ROWS FROM (json_array_elements_text(${keys}::json), json_array_elements_text(${JSON.stringify(args.fingerprints)}::json)) WITH ORDINALITY`;
  const fullRefresh = sql<boolean>`${args.fullRefresh}::boolean`;
  const classified = sqlBuilder()
    .selectFrom(batch.as<"i">(sql`i(pk, fp, ord)`))
    // Each key's state: its sync_states row (probed by primary key), else its block entry
    // (state-blocks.ts). One function call per batch, joined by hash.
    .leftJoin(statesOf(args.syncId, sql<string[]>`ARRAY(SELECT json_array_elements_text(${keys}::json))`), (join) => join.onRef("s.primary_key", "=", "i.pk"))
    .select((eb) => {
      const [key, status, stored, lastRun, fp] = [eb.ref("s.primary_key"), eb.ref("s.last_status"), eb.ref("s.fingerprint"), eb.ref("s.last_run_id"), eb.ref("i.fp")];
      return [
        eb.cast<number>("i.ord", "int4").as("ord"),
        sql<DiffClass | "n">`CASE WHEN ${key} IS NULL THEN 'i'
              WHEN ${lastRun} = ${args.runId} THEN 'd'
              -- Skipped by the write mode: left alone while unchanged, else never delivered (skipped-states.ts).
              WHEN ${status} = 'skipped' AND NOT ${fullRefresh} AND ${stored} = ${fp} THEN 'n'
              WHEN ${status} = 'skipped' OR ${stored} = '' THEN 'i'
              WHEN ${fullRefresh} OR ${stored} <> ${fp} OR ${status} <> 'success' THEN 'u'
              ELSE 'n' END`.as("c"),
        sql<string | null>`CASE WHEN NOT ${fullRefresh} AND ${status} = 'success' AND ${stored} <> '' AND ${lastRun} <> ${args.runId}
              THEN ${stored} END`.as("stored"),
      ];
    });
  const rows = await viaClient(pool, sqlBuilder().selectFrom(classified.as("x")).select(["ord", "c", "stored"]).where("c", "<>", "n"));
  // ORDINALITY is 1-based.
  const classes = new Map<number, DiffClass>();
  const storedFingerprints = new Map<number, string>();
  for (const r of rows) {
    if (r.c === "n") continue; // filtered out by the statement already
    classes.set(r.ord - 1, r.c);
    if (r.c === "u" && r.stored !== null) storedFingerprints.set(r.ord - 1, r.stored);
  }
  return { classes, storedFingerprints };
}

/**
 * True when the sync tracks at least one row. A run that starts with none (a first sync) can skip
 * classifyBatch: every row is an insert, and rows repeated within the run are caught in memory.
 */
export async function hasStates(pool: Pool, syncId: number): Promise<boolean> {
  return tracksAnything(pool, syncId);
}
