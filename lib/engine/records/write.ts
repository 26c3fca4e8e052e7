// Writes a recorded batch's records as blocks (format.ts): one binary COPY of a few rows per batch.
import "server-only";
import type { PoolClient } from "pg";
import { copyRecordBlocks, type RecordBlockRow } from "@/lib/db/pg-wire/record-blocks";
import type { AllAccepted, Outcome, Outcomes } from "@/lib/engine/batch";
import type { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { BLOCK_CHARS, BLOCK_RECORDS, detailsLine, keyLine, outcomeCode, rowPrefix, rowsLines, type OutcomeKind } from "./format";

export type RecordBlock = RecordBlockRow;

function outcomeKind(o: Outcome): OutcomeKind {
  // A skip that counts as delivered (already delivered with its idempotency key) is ok.
  if (o.skipped) return o.ok ? "delivered" : "skipped";
  return o.ok ? "success" : "failed";
}

/**
 * The outcomes as blocks of at most BLOCK_RECORDS records, in order; a block also ends once its
 * texts pass BLOCK_CHARS, so rows of megabytes never make one string past V8's limit (~512M
 * characters) and a page never unpacks more than that.
 */
export function recordBlocks(outcomes: Outcome[]): RecordBlock[] {
  const blocks: RecordBlock[] = [];
  let start = 0;
  while (start < outcomes.length) {
    const end = blockEnd(outcomes, start);
    blocks.push(block(outcomes, start, end));
    start = end;
  }
  return blocks;
}

/** Where the block starting at `start` ends: BLOCK_RECORDS records, or BLOCK_CHARS characters. */
function blockEnd(outcomes: Outcome[], start: number): number {
  let chars = 0;
  let i = start;
  for (; i < outcomes.length && i - start < BLOCK_RECORDS && chars < BLOCK_CHARS; i++) {
    const { item, error, log } = outcomes[i];
    // The key and row as stored are at most a few characters longer; details only exist for failures.
    const row = item.json === undefined && item.lines ? item.lines.size(item.lineIndex as number) : (item.json ?? item.line ?? "").length;
    chars += item.key.length + row + (error === undefined && log === undefined ? 0 : detailsLine(error, log).length);
  }
  return i;
}

/**
 * One block of outcomes[start, end). Written for the common block (every row of one kind, no
 * details): one join per text instead of a string per record; a million records a run go through here.
 */
function block(outcomes: Outcome[], start: number, end: number): RecordBlock {
  const size = end - start;
  const keys = new Array<string>(size);
  const codes = new Array<string>(size);
  let details: string[] | undefined;
  let failed = 0;
  for (let i = 0; i < size; i++) {
    const o = outcomes[start + i];
    const { item } = o;
    const kind = outcomeKind(o);
    if (kind === "failed") failed++;
    codes[i] = outcomeCode(kind, item.action);
    keys[i] = keyLine(item.key);
    if (o.error !== undefined || o.log !== undefined) {
      details ??= new Array<string>(size).fill("");
      details[i] = detailsLine(o.error, o.log);
    }
  }
  return { size, failed, codes: codes.join(""), keys: { prefix: "", bodies: keys }, rows: blockRows(outcomes, start, end), details: details ? details.join("\n") : null };
}

/** The rows of outcomes[start, end): from their batches' bytes when every one is a held line (a pass-through batch), else as texts. */
function blockRows(outcomes: Outcome[], start: number, end: number): RecordBlock["rows"] {
  const size = end - start;
  let held = true;
  for (let i = start; i < end && held; i++) held = outcomes[i].item.json === undefined && outcomes[i].item.lines !== undefined;
  if (held) {
    const lines = new Array<LineBatch>(size);
    const indices = new Array<number>(size);
    for (let i = 0; i < size; i++) {
      const { item } = outcomes[start + i];
      lines[i] = item.lines as LineBatch;
      indices[i] = item.lineIndex as number;
    }
    return { prefix: rowPrefix(undefined, ""), lines, indices };
  }
  const bodies = new Array<string>(size);
  const prefixes = new Array<string>(size);
  for (let i = 0; i < size; i++) {
    const { item } = outcomes[start + i];
    const line = item.json === undefined ? item.line : undefined;
    prefixes[i] = rowPrefix(item.json, line);
    bodies[i] = item.json ?? line ?? "";
  }
  return rowsLines(prefixes, bodies);
}

/**
 * The blocks of a batch all accepted, from its columns: what recordBlocks makes of one outcome each
 * (write.test.ts holds them equal), with no object a record.
 */
export function acceptedBlocks({ accepted }: AllAccepted): RecordBlock[] {
  const { keys, lines, kept } = accepted;
  const code = outcomeCode("success", accepted.action);
  const prefix = rowPrefix(undefined, "");
  const blocks: RecordBlock[] = [];
  for (let start = 0; start < keys.length; ) {
    let end = start;
    for (let chars = 0; end < keys.length && end - start < BLOCK_RECORDS && chars < BLOCK_CHARS; end++) chars += keys[end].length + lines.size(kept[end]);
    const size = end - start;
    const bodies = new Array<string>(size);
    for (let i = 0; i < size; i++) bodies[i] = keyLine(keys[start + i]);
    const rows = { prefix, lines: new Array<LineBatch>(size).fill(lines), indices: kept.subarray(start, end) };
    blocks.push({ size, failed: 0, codes: code.repeat(size), keys: { prefix: "", bodies }, rows, details: null });
    start = end;
  }
  return blocks;
}

/**
 * No conflict is possible: rows this run already recorded are classified "d" and never reach this
 * point again, and only the lock holder records. first_id comes from the column's sequence.
 */
export async function writeRecordBlocks(client: PoolClient, syncId: number, runId: number, outcomes: Outcomes): Promise<void> {
  await copyRecordBlocks(client, syncId, runId, Array.isArray(outcomes) ? recordBlocks(outcomes) : acceptedBlocks(outcomes));
}
