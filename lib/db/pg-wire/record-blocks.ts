// The binary COPY of record blocks into sync_record_blocks (their texts: lib/engine/records/format.ts).
//
// COPY, not an INSERT with the texts as parameters: the planner copied each parameter's value (half a
// megabyte of rows per batch) several times over while folding it into the plan, a tenth of the
// application database's CPU in a full sync (perf, bench/README.md).
import type { ClientBase } from "pg";
import { BinaryCopyInput, type HeldLines, type TextLines } from "./binary-copy-in";

/** One row of sync_record_blocks as written; first_id and created_at come from the column defaults. */
export interface RecordBlockRow {
  size: number;
  failed: number;
  codes: string;
  keys: TextLines;
  /** Texts, or lines still held in their batches (pass-through). */
  rows: TextLines | HeldLines;
  details: string | null;
}

/** Writes the blocks of one run's batch in one COPY, inside the caller's transaction. */
export async function copyRecordBlocks(client: ClientBase, syncId: number, runId: number, blocks: readonly RecordBlockRow[]): Promise<void> {
  if (blocks.length === 0) return;
  const input = new BinaryCopyInput();
  for (const b of blocks) {
    input.row(8).int4(syncId).int4(runId).int4(b.size).int4(b.failed).text(b.codes).textLines(b.keys);
    if ("bodies" in b.rows) input.textLines(b.rows);
    else input.heldLines(b.rows);
    input.text(b.details);
  }
  await input.copy(client, "COPY sync_record_blocks (sync_id, sync_run_id, size, failed, codes, keys, rows, details) FROM STDIN");
}
