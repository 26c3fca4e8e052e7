// Writes a recorded batch's records as blocks (format.ts): one INSERT of a few rows per batch.
import "server-only";
import type { PoolClient } from "pg";
import type { Outcome } from "@/lib/engine/batch";
import { BLOCK_CHARS, BLOCK_RECORDS, detailsLine, keyLine, outcomeCode, rowLine, type OutcomeKind } from "./format";

export interface RecordBlock {
  size: number;
  failed: number;
  codes: string;
  keys: string;
  rows: string;
  details: string | null;
}

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
    const keys: string[] = [];
    const rows: string[] = [];
    const details: string[] = [];
    let codes = "";
    let failed = 0;
    let anyDetails = false;
    let chars = 0;
    let i = start;
    for (; i < outcomes.length && i - start < BLOCK_RECORDS && chars < BLOCK_CHARS; i++) {
      const o = outcomes[i];
      const { item } = o;
      const kind = outcomeKind(o);
      if (kind === "failed") failed++;
      codes += outcomeCode(kind, item.action);
      const key = keyLine(item.key);
      const row = rowLine(item.json, item.line);
      const line = detailsLine(o.error, o.log);
      keys.push(key);
      rows.push(row);
      if (line) anyDetails = true;
      details.push(line);
      chars += key.length + row.length + line.length;
    }
    blocks.push({
      size: i - start,
      failed,
      codes,
      keys: keys.join("\n"),
      rows: rows.join("\n"),
      details: anyDetails ? details.join("\n") : null,
    });
    start = i;
  }
  return blocks;
}

/**
 * No conflict is possible: rows this run already recorded are classified "d" and never reach this
 * point again, and only the lock holder records. first_id comes from the column's sequence.
 */
export async function writeRecordBlocks(client: PoolClient, syncId: number, runId: number, outcomes: Outcome[]): Promise<void> {
  const blocks = recordBlocks(outcomes);
  if (blocks.length === 0) return;
  const values: unknown[] = [syncId, runId];
  const tuples = blocks.map((b) => {
    const at = values.length;
    values.push(b.size, b.failed, b.codes, b.keys, b.rows, b.details);
    return `($1, $2, $${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`;
  });
  await client.query(`INSERT INTO sync_record_blocks (sync_id, sync_run_id, size, failed, codes, keys, rows, details) VALUES ${tuples.join(", ")}`, values);
}
