// Reads records back out of their blocks (format.ts): which blocks hold a window of a run's records
// (their heads: first id, size and how many records match a filter, counted in SQL from the codes),
// then only the lines of those blocks the window needs, expanded into records here.
import "server-only";
import { sql, type Expression, type InferResult } from "kysely";
import { compiledByShape, selectRows, sqlBuilder } from "@/lib/db/kysely";
import { recordDecoder, type RecordDecoder } from "@/lib/engine/pass-through/record-columns";
import type { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";
import { ALL_CODES, decodeCode, detailsOfLine, keyLine, keyOfLine, matchingCodes, rowOfLine } from "./format";
import type { SyncRecord } from "./types";

export interface RecordFilter {
  status?: SyncRecordStatus;
  action?: SyncRecordAction;
  primaryKey?: string;
}

/** A block's place in its run, and how many of its records the filter's codes match. */
export interface BlockHead {
  firstId: bigint;
  size: number;
  matches: number;
}

/** Lines lo..hi (1-based, inclusive) of one block. */
export interface BlockSlice {
  firstId: bigint;
  lo: number;
  hi: number;
}

/** What of a filter changes the SQL text of a heads query; its values are HeadsValues. */
interface HeadsShape {
  failedOnly: boolean;
  byKey: boolean;
  /** Every code matches: a block's matches are its size. */
  allCodes: boolean;
}

interface HeadsValues {
  runId: number;
  /** The key as a whole line of a block's keys (byKey). */
  keyText: string;
  /** The codes the filter does not match. */
  others: string;
}

function headsOf(runId: number, filter: RecordFilter): { shape: HeadsShape; values: HeadsValues } {
  const codes = matchingCodes(filter);
  const others = [...ALL_CODES].filter((c) => !codes.includes(c)).join("");
  const byKey = filter.primaryKey !== undefined;
  return {
    shape: { failedOnly: filter.status === "failed", byKey, allCodes: others === "" },
    values: { runId, keyText: byKey ? `\n${keyLine(filter.primaryKey!)}\n` : "", others },
  };
}

/** The run's blocks (b), passing over blocks which cannot hold a match, each with its place and its count of matches. */
function headsQuery(shape: HeadsShape, at: HeadsValues) {
  // translate() deletes every code the filter does not match: the length left is the count.
  const matches = shape.allCodes ? sql<number>`b.size` : sql<number>`length(translate(b.codes, ${at.others}, ''))::int`;
  return (
    sqlBuilder()
      .selectFrom("sync_record_blocks as b")
      .select(["b.first_id", "b.size", matches.as("matches")])
      .where("b.sync_run_id", "=", at.runId)
      // The partial index sync_record_blocks_failed (failed > 0, a literal, so a generic plan can use it).
      .$if(shape.failedOnly, (q) => q.where("b.failed", ">", sql.lit(0)))
      // A block whose keys hold the key as a whole line; the records are matched exactly on expansion.
      .$if(shape.byKey, (q) => q.where(sql<number>`strpos(E'\n' || b.keys || E'\n', ${at.keyText})`, ">", sql.lit(0)))
  );
}

/** The run's blocks in id order, each with its count of records whose code matches the filter. */
export async function blockHeads(runId: number, filter: RecordFilter): Promise<BlockHead[]> {
  const { shape, values } = headsOf(runId, filter);
  const rows = await selectRows(headsQuery(shape, values).orderBy("b.first_id"));
  return rows.map((r) => ({ firstId: r.first_id, size: r.size, matches: r.matches }));
}

export interface PageHeads {
  /** The blocks a page starting at `skip` matches (or after `afterId`) can need, in order. */
  heads: BlockHead[];
  /** Matches in the blocks before the first of `heads`. */
  before: number;
  /** Matches in the whole run, as the codes count them. */
  total: number;
}

/** Which records a page shows: `take` of them after skipping `skip`, or after the record `afterId`. */
export interface PageWindow {
  skip: number;
  take: number;
  afterId?: bigint;
}

/** What changes a page's heads statement: the filter's shape, and whether it pages after an id. */
export interface PageHeadsShape extends HeadsShape {
  afterId: boolean;
}

export interface PageHeadsValues extends HeadsValues {
  skip: number;
  /** take + 1 */
  limit: number;
  afterId: bigint;
}

/** A page's heads statement's shape and values. */
export function pageHeadsOf(runId: number, filter: RecordFilter, window: PageWindow): { shape: PageHeadsShape; values: PageHeadsValues } {
  // Built field by field: object spreads cost a page request more than the rest of its statement's making.
  const { shape: s, values: v } = headsOf(runId, filter);
  return {
    shape: { failedOnly: s.failedOnly, byKey: s.byKey, allCodes: s.allCodes, afterId: window.afterId !== undefined },
    values: { runId, keyText: v.keyText, others: v.others, skip: window.skip, limit: window.take + 1, afterId: window.afterId ?? 0n },
  };
}

/**
 * Only the heads a page needs, with the run's total, in one statement: the counts are summed in the
 * database, so a page of a million-record run reads a thousand heads there but sends back a few.
 * Every head sent has a match, so take + 1 of them always hold the page (the first may lie partly
 * before the skip or after_id); a page by offset gets only the heads it shows. Its rows (the run's
 * total, and one head each; none: first_id null) become PageHeads with toPageHeads; the caller runs
 * it with what else it reads (records.ts: the run's scope), compiled once per shape (compiledByShape).
 */
export function pageHeadsQuery(shape: PageHeadsShape, at: PageHeadsValues) {
  return sqlBuilder()
    .with((cte) => cte("h").materialized(), () => headsQuery(shape, at))
    .with("w", (q) => q.selectFrom("h").selectAll("h").select(sql<number>`sum(h.matches) OVER (ORDER BY h.first_id)`.as("upto")))
    .selectFrom((q) => q.selectFrom("h").select(sql<number>`coalesce(sum(matches), 0)::int`.as("total")).as("t"))
    .leftJoinLateral(
      (q) =>
        q
          .selectFrom("w")
          .select(["w.first_id", "w.size", "w.matches", sql<number>`(w.upto - w.matches)::int`.as("before")])
          .where("w.matches", ">", sql.lit(0))
          .where("w.upto", ">", at.skip)
          .$if(shape.afterId, (q) => q.where(sql<bigint>`w.first_id + w.size - 1`, ">", at.afterId))
          // A page by offset ends at skip + take (limit is take + 1): a head whose matches all lie
          // past it is not sent, nor are its lines sliced (pageLinesQuery slices each head it joins).
          .$if(!shape.afterId, (q) => q.where(sql<bigint>`w.upto - w.matches`, "<", sql<bigint>`${at.skip}::bigint + ${at.limit}::int - 1`))
          .orderBy("w.first_id")
          .limit(at.limit)
          .as("p"),
      (join) => join.onTrue(),
    )
    .select(["t.total", "p.first_id", "p.size", "p.matches", "p.before"])
    .orderBy("p.first_id");
}

/**
 * An unfiltered page (every code matches, no after_id) with its lines, in one statement: the heads of
 * pageHeadsQuery, each joined to the lines of its block that the page shows (from the skip on, none
 * past its end). The hottest read of records (a run's first page) saves the slices' round trip.
 * Its rows become records with pageOfLines.
 */
export function pageLinesQuery(shape: PageHeadsShape, at: PageHeadsValues) {
  // In bigint: a page far past the end skips more than an int holds (the lines of a head it reaches fit one).
  const lo = sql<number>`greatest(1, ${at.skip}::bigint - ph.before + 1)::int`;
  const hi = sql<number>`least(ph.size, ${at.skip}::bigint + ${at.limit}::int - 1 - ph.before)::int`;
  return sqlBuilder()
    .selectFrom(pageHeadsQuery(shape, at).as("ph"))
    .leftJoinLateral(
      (q) =>
        q
          .selectFrom("sync_record_blocks as b")
          .select(sliceColumns(lo, hi))
          .where("b.sync_run_id", "=", at.runId)
          .whereRef("b.first_id", "=", "ph.first_id")
          .where(sql<boolean>`${hi} >= ${lo}`)
          .as("s"),
      (join) => join.onTrue(),
    )
    .select(["ph.total", "ph.first_id", "ph.size", "ph.matches", "ph.before", "s.sync_id", "s.lo", "s.codes", "s.keys", "s.rows", "s.details", "s.created_at"])
    .orderBy("ph.first_id");
}

/** The lines of pageLinesQuery's rows as records: the page, in id order. */
export async function pageOfLines(rows: InferResult<ReturnType<typeof pageLinesQuery>>, options: ExpandOptions): Promise<SyncRecord[]> {
  const slices: SliceRow[] = [];
  for (const r of rows) {
    if (r.first_id === null || r.sync_id === null || r.lo === null || r.codes === null || r.keys === null || r.rows === null || r.created_at === null) continue;
    slices.push({ first_id: r.first_id, sync_id: r.sync_id, lo: r.lo, codes: r.codes, keys: r.keys, rows: r.rows, details: r.details, created_at: r.created_at });
  }
  return expand(slices, options, await recordDecoder(options.recordColumns));
}

/** A row of pageHeadsQuery: the run's total, and one head (none: first_id null). */
export type PageHeadRow = InferResult<ReturnType<typeof pageHeadsQuery>>[number];

/** The heads of pageHeadsQuery's rows, in order. */
export function toPageHeads(rows: PageHeadRow[]): PageHeads {
  const heads = rows.flatMap((r) => (r.first_id === null || r.size === null || r.matches === null ? [] : [{ firstId: r.first_id, size: r.size, matches: r.matches }]));
  return { heads, before: rows.find((r) => r.first_id !== null)?.before ?? 0, total: rows[0]?.total ?? 0 };
}

/** Lines lo..hi of block b's `column`: string_to_array in the database, so only they travel. */
const blockLines = (column: "keys" | "rows" | "details", lo: Expression<number>, hi: Expression<number>) =>
  sql<string>`array_to_string((string_to_array(${sql.ref(`b.${column}`)}, E'\n'))[${lo}:${hi}], E'\n')`;

/** What a slice reads of block b, lines lo..hi: the columns expand() takes. */
const sliceColumns = (lo: Expression<number>, hi: Expression<number>) =>
  [
    "b.first_id",
    "b.sync_id",
    sql<number>`${lo}`.as("lo"),
    // greatest(): the planner may compute this for a block whose slice is then filtered out (hi < lo).
    sql<string>`substr(b.codes, ${lo}, greatest(0, ${hi} - ${lo} + 1))`.as("codes"),
    blockLines("keys", lo, hi).as("keys"),
    blockLines("rows", lo, hi).as("rows"),
    blockLines("details", lo, hi).$castTo<string | null>().as("details"),
    "b.created_at",
  ] as const;

/** The lines of the slices, in id order. */
const slicesQuery = compiledByShape((_shape: "slices", at: { runId: number; firstIds: string[]; los: number[]; his: number[] }) => {
  // The slices as a table w: unnest()s side by side in a select list zip arrays of one length.
  const windows = sqlBuilder()
    .selectNoFrom([sql<bigint>`unnest(${at.firstIds}::bigint[])`.as("first_id"), sql<number>`unnest(${at.los}::int[])`.as("lo"), sql<number>`unnest(${at.his}::int[])`.as("hi")])
    .as("w");
  return sqlBuilder()
    .selectFrom(windows)
    .innerJoin("sync_record_blocks as b", (join) => join.on("b.sync_run_id", "=", at.runId).onRef("b.first_id", "=", "w.first_id"))
    .select(sliceColumns(sql.ref<number>("w.lo"), sql.ref<number>("w.hi")))
    .orderBy("b.first_id");
});

async function fetchSlices(runId: number, slices: BlockSlice[]) {
  if (slices.length === 0) return [];
  return selectRows(
    slicesQuery("slices", { runId, firstIds: slices.map((s) => s.firstId.toString()), los: slices.map((s) => s.lo), his: slices.map((s) => s.hi) }),
  );
}
type SliceRow = Awaited<ReturnType<typeof fetchSlices>>[number];

export interface ExpandOptions {
  runId: number;
  /** sync_runs.record_columns: how COPY lines of the run decode. */
  recordColumns: unknown;
  filter: RecordFilter;
  /** Only records with a larger id. */
  afterId?: bigint;
}

/** The records of fetched slices that match the filter, in id order. */
function expand(rows: SliceRow[], options: ExpandOptions, decode: RecordDecoder): SyncRecord[] {
  const codes = matchingCodes(options.filter);
  const { primaryKey } = options.filter;
  const out: SyncRecord[] = [];
  for (const b of rows) {
    const keys = b.keys.split("\n");
    const lines = b.rows.split("\n");
    const details = b.details?.split("\n");
    for (let k = 0; k < b.codes.length; k++) {
      const code = b.codes[k];
      if (!codes.includes(code)) continue;
      const id = b.first_id + BigInt(b.lo - 1 + k);
      if (options.afterId !== undefined && id <= options.afterId) continue;
      const key = keyOfLine(keys[k] ?? "");
      if (primaryKey !== undefined && key !== primaryKey) continue;
      const { status, action } = decodeCode(code);
      const { error, log } = detailsOfLine(details?.[k]);
      const stored = rowOfLine(lines[k] ?? "");
      out.push({
        id,
        syncId: b.sync_id,
        syncRunId: options.runId,
        primaryKey: key,
        record: stored === null ? null : "json" in stored ? JSON.parse(stored.json) : decode(stored.copyLine),
        status,
        action,
        error,
        logs: log,
        createdAt: b.created_at,
        updatedAt: b.created_at,
      });
    }
  }
  return out;
}

/** At most this many whole blocks are fetched per query when a filter decides which lines match. */
const BLOCKS_PER_FETCH = 4;

/**
 * Up to `take` matching records after skipping `skip` of them, walking `heads` in order (heads as
 * pageHeadsQuery gives them: `before` matches precede the first). Counts are exact for status and action
 * filters, so unfiltered pages fetch only the lines they show; after_id fetches whole blocks and
 * filters them here. Not for a key search, whose counts are not exact (sync-records.ts:keySearch).
 */
export async function readWindow(page: Pick<PageHeads, "heads" | "before">, options: ExpandOptions, skip: number, take: number): Promise<SyncRecord[]> {
  const { heads } = page;
  const exact = options.afterId === undefined;
  const unfiltered = exact && matchingCodes(options.filter) === ALL_CODES;
  let at = 0;
  let toSkip = Math.max(0, skip - page.before);
  if (exact) {
    while (at < heads.length && toSkip >= heads[at].matches) toSkip -= heads[at++].matches;
  }
  const out: SyncRecord[] = [];
  while (at < heads.length && out.length < take) {
    const slices: BlockSlice[] = [];
    let expected = 0;
    // Unfiltered: exactly the lines needed. Otherwise: whole blocks, a few at a time.
    const wanted = (unfiltered ? 0 : toSkip) + take - out.length;
    while (at < heads.length && slices.length < BLOCKS_PER_FETCH && expected < wanted) {
      const h = heads[at++];
      if (unfiltered) {
        const lo = slices.length === 0 ? toSkip + 1 : 1;
        const hi = Math.min(h.size, lo - 1 + take - out.length - expected);
        slices.push({ firstId: h.firstId, lo, hi });
        expected += hi - lo + 1;
      } else {
        slices.push({ firstId: h.firstId, lo: 1, hi: h.size });
        expected += h.matches;
      }
    }
    let records = expand(await fetchSlices(options.runId, slices), options, await recordDecoder(options.recordColumns));
    if (unfiltered) toSkip = 0;
    else if (toSkip > 0) {
      const dropped = Math.min(toSkip, records.length);
      records = records.slice(dropped);
      toSkip -= dropped;
    }
    out.push(...records.slice(0, take - out.length));
  }
  return out;
}

/** Every matching record of the heads, a few blocks at a time (the CSV export). */
export async function* readAll(heads: BlockHead[], options: ExpandOptions): AsyncGenerator<SyncRecord[]> {
  for (let at = 0; at < heads.length; at += BLOCKS_PER_FETCH) {
    const slices = heads.slice(at, at + BLOCKS_PER_FETCH).map((h) => ({ firstId: h.firstId, lo: 1, hi: h.size }));
    const records = expand(await fetchSlices(options.runId, slices), options, await recordDecoder(options.recordColumns));
    if (records.length) yield records;
  }
}

/** One record by id, or undefined. */
export async function readRecord(runId: number, recordColumns: unknown, id: bigint): Promise<SyncRecord | undefined> {
  const [block] = await selectRows(
    sqlBuilder()
      .selectFrom("sync_record_blocks")
      .select(["first_id", "size"])
      .where("sync_run_id", "=", runId)
      .where("first_id", "<=", id)
      .orderBy("first_id", "desc")
      .limit(sql.lit(1)),
  );
  if (!block || id >= block.first_id + BigInt(block.size)) return undefined;
  const at = Number(id - block.first_id) + 1;
  const slices = await fetchSlices(runId, [{ firstId: block.first_id, lo: at, hi: at }]);
  const [record] = expand(slices, { runId, recordColumns, filter: {} }, await recordDecoder(recordColumns));
  return record;
}
