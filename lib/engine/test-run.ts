// A test run: one row of the model (the one the user picked by primary key, else a random one), sent on its own (one record per request, exactly what a
// sync sends), recorded with its counters, never touching change tracking, the cursor or the sync's
// status.
import "server-only";
import type { Row } from "@/lib/connectors/types";
import { statesOf } from "@/lib/db/declared-relations";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import type { Item } from "./batch";
import { RunSetupError } from "./context";
import { fingerprint, primaryKeyOf, rowJson } from "./diff";
import { BatchRecorder } from "./record-batch";
import type { RunAttempt, RunStrategy } from "./run-attempt";
import { zeroCounters } from "./run-store";
import { sendItems } from "./send-batch";

/** Test runs pick one random row among at most this many. */
const TEST_SAMPLE_ROWS = 10_000;

export const testRun: RunStrategy = { batchRequests: false, tracksSync: false, extract: sendOneRow };

async function sendOneRow(attempt: RunAttempt): Promise<void> {
  const { ctx, pool } = attempt;
  if (attempt.resumed) {
    // A test run sends one row and records it with its counters in one transaction: if an
    // interrupted attempt got that far, the run is done; sampling again could send a second row.
    const { rowCount } = await pool.query("SELECT 1 FROM sync_record_blocks WHERE sync_run_id = $1 LIMIT 1", [ctx.run.id]);
    if (rowCount) return;
  }
  const started = performance.now();
  const picked = ctx.run.testPrimaryKey;
  const chosen = picked === null ? await sampleRow(attempt) : await findRow(attempt, picked);
  attempt.timings.query += performance.now() - started;
  if (!chosen) return;
  const recorder = new BatchRecorder(attempt, { states: "none" });
  const delta = zeroCounters();
  delta.totalQueryRows = 1;
  delta.processedRows = 1;
  const key = primaryKeyOf(chosen, ctx.model.primaryKey);
  if (key === null) {
    delta.skippedRows = 1;
    await recorder.record({ seq: attempt.nextSeq++, outcomes: [], delta });
    return;
  }
  const json = rowJson(chosen);
  const item: Item = { key, json, fingerprint: fingerprint(ctx.fingerprintSeed, json), row: chosen, action: "destination_insert" };
  // Delivered before (a state with a fingerprint): the destination has it, so it is an update.
  const rows = await viaClient(pool, sqlBuilder().selectFrom(statesOf(ctx.sync.id, [key])).select(["s.fingerprint", "s.last_status"]));
  if (rows.length > 0 && rows[0].fingerprint !== "" && rows[0].last_status !== "skipped") item.action = "destination_update";
  await recorder.record({ seq: attempt.nextSeq++, outcomes: await sendItems(attempt, [item]), delta });
}

/**
 * The row whose primary key is `key` (compared as the record's key text). Models are arbitrary
 * queries, so the read streams them until the row comes (the whole query at worst), a batch in
 * memory at a time.
 */
async function findRow(attempt: RunAttempt, key: string): Promise<Row> {
  const { ctx } = attempt;
  for await (const rows of ctx.source.read(ctx.sourceConfig, { query: ctx.model.query, batchSize: 1000, signal: attempt.signal })) {
    const found = rows.find((row) => primaryKeyOf(row, ctx.model.primaryKey) === key);
    if (found) return found;
  }
  throw new RunSetupError(`No row of the model "${ctx.model.name}" has ${ctx.model.primaryKey} = ${JSON.stringify(key)}; nothing was sent.`);
}

/** Reservoir sampling over the first TEST_SAMPLE_ROWS rows: each had the same chance of being chosen. */
async function sampleRow(attempt: RunAttempt): Promise<Row | undefined> {
  const { ctx } = attempt;
  let chosen: Row | undefined;
  let seenRows = 0;
  for await (const rows of ctx.source.read(ctx.sourceConfig, { query: ctx.model.query, batchSize: 1000, signal: attempt.signal })) {
    for (const row of rows) {
      seenRows++;
      if (Math.random() * seenRows < 1) chosen = row;
    }
    if (seenRows >= TEST_SAMPLE_ROWS) break;
  }
  return chosen;
}
