// Map and load: a batch's Items become mapped records, the Loader writes them, and each sent record
// becomes an Outcome with its (scrubbed) log. A row that fails to map fails alone without being sent.
import "server-only";
import type { LogPart, Row, WriteRecord } from "@/lib/connectors/types";
import type { Item, Outcome } from "./batch";
import { deletePayload, MappingError } from "@/lib/sync-rules/mapping";
import { failureLog, storedLog, unsentLog, writeAction } from "./record-logs";
import type { RunAttempt } from "./run-attempt";
import { admitDeliveries } from "./delivery-ledger";
import type { RunContext } from "./context";
import { recordActionOf, splitByWriteMode } from "./write-mode";
import type { UpdateBinding } from "./plan/approval";

/** Longest stretch of synchronous mapping before the run gives the event loop a turn. */
const YIELD_AFTER_MS = 20;

/** A batch's Items mapped: the records to write (by key, with their Item) and the Items whose mapping failed. */
export interface MappedItems {
  records: WriteRecord[];
  byKey: Map<string, Item>;
  failures: Outcome[];
}

/** The map stage: each Item's destination payload (deletes carry their key only). */
export async function mapItems(ctx: RunContext, items: readonly Item[], now = new Date()): Promise<MappedItems> {
  const failures: Outcome[] = [];
  const records: WriteRecord[] = [];
  const byKey = new Map<string, Item>();
  const upsert = (ctx.stream.primary_key?.length ?? 0) > 0;
  let turn = performance.now();
  for (const item of items) {
    // Templates render synchronously (up to their time limit each): between rows, let the rest of
    // the process (the API, when the worker shares the web process) have the event loop.
    if (performance.now() - turn > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    let payload: Row;
    if (item.action === "destination_delete") {
      payload = deletePayload(ctx.mapping, ctx.model.primaryKey, item.key);
    } else {
      try {
        // Rows are JSON-safe (connectors guarantee it), so the parsed JSON is the row as read. Items
        // without JSON (pass-through) always carry their row.
        payload = ctx.mapping.map(item.row ?? (JSON.parse(item.json ?? "{}") as Row), now);
      } catch (err) {
        if (!(err instanceof MappingError)) throw err;
        failures.push({ item, ok: false, error: err.message, log: storedLog(unsentLog(err.message), false, ctx.scrub) });
        continue;
      }
    }
    // Destinations with a primary key get upserts, so a retried or re-sent row never duplicates.
    records.push({ key: item.key, action: writeAction(item.action, upsert), payload });
    byKey.set(item.key, item);
  }
  return { records, byKey, failures };
}

/**
 * Outcomes of the Items sent or refused; Items a stop left unsent have none. `bound`: their updates
 * were checked against the run's approval already (pass-through lines the destination refused).
 */
export async function sendItems(attempt: RunAttempt, items: Item[], bound = false): Promise<Outcome[]> {
  if (items.length === 0) return [];
  const { ctx } = attempt;
  const { records, byKey, failures: results } = await mapItems(ctx, items);
  if (records.length === 0) return results;
  // update and insert modes leave some records unsent on purpose: recorded as skipped, with why.
  const split = await splitByWriteMode(ctx, records, attempt.signal);
  // Here, once the write mode said which records are updates (update mode's can be rows new to the sync).
  if (attempt.updates && !bound) bindUpdates(attempt.updates, split.send, byKey);
  for (const { record, reason } of split.skipped) {
    const item = byKey.get(record.key) as Item;
    item.action = recordActionOf(record.action, item.action);
    results.push({ item, ok: false, skipped: true, error: reason });
  }
  // Non-idempotent destinations: keys on the records, and those already delivered set aside.
  const send = await admitDeliveries(attempt, split.send, byKey, results);
  const outcomes = await attempt.loader.load(send);
  const stream = ctx.stream.name;
  // The records of one request share their response: scrubbed once.
  const memo = new WeakMap<LogPart, LogPart>();
  for (const record of send) {
    const o = outcomes.get(record.key);
    if (!o) continue; // never sent: the run stopped first
    const item = byKey.get(record.key) as Item;
    item.action = recordActionOf(record.action, item.action);
    const error = o.ok ? undefined : ctx.scrub(o.error ?? "The destination refused the record.");
    // A success without the destination's own log (SQL) stores none: it is derived on read.
    const log = o.log ?? (error === undefined ? undefined : failureLog(record.action, stream, record.payload, error));
    results.push({ item, ok: o.ok, error, log: log && storedLog(log, o.ok, ctx.scrub, memo) });
  }
  return results;
}

/** Throws, before anything of the batch is written, at the first update its approval does not cover. */
function bindUpdates(binding: UpdateBinding, records: readonly WriteRecord[], byKey: Map<string, Item>): void {
  for (const record of records) {
    if (recordActionOf(record.action, (byKey.get(record.key) as Item).action) !== "destination_update") continue;
    binding.admit(record.key);
  }
}
