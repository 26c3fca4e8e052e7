// The compact record format (sync_record_blocks): the records of one recorded batch are stored as one
// row per block of up to BLOCK_RECORDS records instead of one row each. A per-row row with its
// primary key index cost the application database ~1.7 µs and the worker a binary COPY tuple of nine
// fields per record (bench/README.md); a block is a handful of texts, one line per record:
//
//   codes    one character per record: its status (as counted) and action (OUTCOME_CODES)
//   keys     the primary keys, one per line (KEY_LINE)
//   rows     the source rows: "j" + JSON, "c" + the source's COPY text line, "" for none
//   details  "" or JSON {"e": error, "l": log} per record; NULL when no record of the block has one
//
// Record i (0-based) of a block has the id first_id + i; first_id comes from a sequence that steps by
// 1000, at least BLOCK_RECORDS (migration 20261127161822_record_blocks), so ids stay unique and in
// recording order, as they were per row. JSON and COPY text never hold a raw newline, which is what makes "\n" a safe separator for rows and details.
// This module is the one encoder and decoder of these texts (write.ts and read.ts build blocks and
// read them through it; SQL that decodes a key line takes keyOfLineSql); the view sync_record_rows
// of the migration decodes the same way, for SQL by hand, and its test compares it with this module.
import { sql, type Expression, type RawBuilder } from "kysely";
import type { RecordLog } from "@/lib/connectors/types";
import type { TextLines } from "@/lib/db/pg-wire/binary-copy-in";
import type { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";

/** Records per block at most: a page of records reads one or two blocks. */
export const BLOCK_RECORDS = 1000;
/** A block ends once its lines hold this many characters, even with fewer records (write.ts). */
export const BLOCK_CHARS = 8 * 1024 * 1024;

/**
 * What a record's status counts as: `delivered` is a skip of a record already delivered with its
 * idempotency key, shown as skipped but counted as delivered (run-store.ts:ALREADY_DELIVERED).
 */
export const OUTCOMES = ["success", "failed", "skipped", "delivered", "pending"] as const;
export type OutcomeKind = (typeof OUTCOMES)[number];
export const ACTIONS = ["destination_insert", "destination_update", "destination_delete"] as const satisfies readonly SyncRecordAction[];

const STATUS_OF: Record<OutcomeKind, SyncRecordStatus> = {
  success: "success",
  failed: "failed",
  skipped: "skipped",
  delivered: "skipped",
  pending: "pending",
};

/** 'A' + outcome × 3 + action: fifteen letters, A..O. The SQL view sync_record_rows decodes the same way. */
export function outcomeCode(outcome: OutcomeKind, action: SyncRecordAction): string {
  return String.fromCharCode(65 + OUTCOMES.indexOf(outcome) * ACTIONS.length + ACTIONS.indexOf(action as (typeof ACTIONS)[number]));
}

const DECODED = new Map<string, { status: SyncRecordStatus; action: SyncRecordAction; outcome: OutcomeKind }>();
for (const outcome of OUTCOMES) {
  for (const action of ACTIONS) DECODED.set(outcomeCode(outcome, action), { status: STATUS_OF[outcome], action, outcome });
}

export function decodeCode(code: string): { status: SyncRecordStatus; action: SyncRecordAction; outcome: OutcomeKind } {
  const decoded = DECODED.get(code);
  if (!decoded) throw new Error(`Unknown record code ${JSON.stringify(code)}.`);
  return decoded;
}

/** The codes a list filter matches, for counting in SQL (translate) and filtering in TypeScript. */
export function matchingCodes(filter: { status?: SyncRecordStatus; action?: SyncRecordAction }): string {
  let codes = "";
  for (const [code, d] of DECODED) {
    if ((!filter.status || d.status === filter.status) && (!filter.action || d.action === filter.action)) codes += code;
  }
  return codes;
}

/** The codes of every outcome but these: translate(codes, them, '') leaves the records of these. */
export function codesOtherThan(outcomes: OutcomeKind[]): string {
  let codes = "";
  for (const [code, d] of DECODED) if (!outcomes.includes(d.outcome)) codes += code;
  return codes;
}

/** Every code letter, in order (the SQL counts matches as the length left after deleting the others). */
export const ALL_CODES = [...DECODED.keys()].join("");

/**
 * A key as a line: as it is, unless it holds a newline or begins with a double quote; then as its
 * JSON string (which begins with one). Keys are rarely either, so most cost nothing.
 */
export function keyLine(key: string): string {
  return key.charCodeAt(0) === 34 || key.includes("\n") ? JSON.stringify(wellFormed(key)) : key;
}

export function keyOfLine(line: string): string {
  return line.charCodeAt(0) === 34 ? (JSON.parse(line) as string) : line;
}

/** keyOfLine in SQL, of a key line `line` (a text expression): for statements that match keys in the database. */
export function keyOfLineSql(line: Expression<string>): RawBuilder<string> {
  return sql<string>`CASE WHEN left(${line}, 1) = '"' THEN ${line}::json #>> '{}' ELSE ${line} END`;
}

/** A lone surrogate (a text cut inside an emoji, e.g. shared/http.ts:describeExchange). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Lone surrogates as U+FFFD, what PostgreSQL stores for them in a text: JSON.stringify escapes them
 * as \udXXX, which PostgreSQL's JSON operators refuse (the view sync_record_rows would fail for the run).
 */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd");
}

/** JSON whose strings hold no lone surrogate; JSON.stringify escapes nothing else as \ud8..\udf. */
function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value);
  return /\\ud[89a-f]/i.test(json) ? JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? wellFormed(v) : v)) : json;
}

/** The first character of a record's row line: "j" JSON, "c" COPY text, "" when it has none (a delete). */
export function rowPrefix(json: string | undefined, copyLine: string | undefined): "j" | "c" | "" {
  return json !== undefined ? "j" : copyLine !== undefined ? "c" : "";
}

/** A record's row as a line: "j" + JSON, "c" + COPY text, "" when the record has none (a delete). */
export function rowLine(json: string | undefined, copyLine: string | undefined): string {
  return rowPrefix(json, copyLine) + (json ?? copyLine ?? "");
}

/**
 * A block's `rows` lines from each record's prefix and body (rowPrefix; the JSON or COPY text), with
 * one prefix for all in the common block, every row of one kind. Written by textLines (pg-wire).
 */
export function rowsLines(prefixes: readonly string[], bodies: readonly string[]): TextLines {
  const first = prefixes[0] ?? "";
  return { prefix: prefixes.every((p) => p === first) ? first : prefixes, bodies };
}

export type StoredRow = { json: string } | { copyLine: string } | null;

export function rowOfLine(line: string): StoredRow {
  if (line === "") return null;
  return line.charCodeAt(0) === 106 /* j */ ? { json: line.slice(1) } : { copyLine: line.slice(1) };
}

export interface RecordDetails {
  error: string | null;
  log: RecordLog | null;
}

export function detailsLine(error: string | undefined, log: RecordLog | undefined): string {
  if (error === undefined && log === undefined) return "";
  return wellFormedJson({ e: error ?? null, l: log ?? null });
}

export function detailsOfLine(line: string | undefined): RecordDetails {
  if (!line) return { error: null, log: null };
  const parsed = JSON.parse(line) as { e: string | null; l: RecordLog | null };
  return { error: parsed.e, log: parsed.l };
}
