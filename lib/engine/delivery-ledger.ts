// Idempotent deliveries for destinations whose writes are not idempotent (HTTP webhook, Slack):
// every record gets an idempotency key, and a ledger in the application database (sync_deliveries)
// holds, per (sync, primary key), the key of the last delivery the destination accepted. The key is
// written as soon as its request succeeded, before the batch commits, so across retries, resumed
// runs and worker crashes a record whose key is in the ledger is never sent again: it is recorded
// `skipped` (and counted delivered) instead. Destinations that upsert by key never get here.
//
// The key is a hash of (sync, primary key, write or delete, fingerprint, seq), where seq counts the
// deliveries of that primary key so far (from the ledger): the same for every attempt at one version
// of a record, and new when a row comes back to an earlier version (A → B → A sends A again, with
// another key). Full-refresh runs re-send every row by design, so their keys also carry the run.
// Test runs send the row they were asked to: a key of their own, no ledger.
import "server-only";
import { hash } from "node:crypto";
import type { Pool } from "pg";
import { db, viaClient } from "@/lib/db/kysely";
import type { RecordLog, WriteRecord } from "@/lib/connectors/types";
import type { Item, Outcome } from "./batch";
import type { RunContext } from "./context";
import { ALREADY_DELIVERED } from "./run-store";

interface Delivered {
  key: string;
  seq: number;
}

export interface Admission {
  /** Records to send, each with its idempotency key. */
  send: WriteRecord[];
  /** Records already delivered with their key: not sent again. */
  delivered: { record: WriteRecord; reason: string; log: RecordLog }[];
}

/** 32 hex characters (128 bits of SHA-256): short enough for any header, never reused by accident. */
export function idempotencyKey(parts: { syncId: number; primaryKey: string; action: WriteRecord["action"]; fingerprint: string; seq: number; generation: string }): string {
  const { syncId, primaryKey, action, fingerprint, seq, generation } = parts;
  const text = ["datasync-delivery-v1", syncId, primaryKey, action === "delete" ? "delete" : "write", fingerprint, seq, generation].join("\u0000");
  return hash("sha256", text).slice(0, 32);
}

export class DeliveryLedger {
  /** The ledger's seq a sent record's key was made with, until its delivery is written. */
  private readonly seqOf = new WeakMap<WriteRecord, number>();

  constructor(
    private readonly pool: Pool,
    private readonly syncId: number,
    /** "" for incremental runs; the run for full refresh ("run:<id>") and test runs ("test:<id>"). */
    private readonly generation: string,
    /** False for test runs: keys only, no ledger. */
    private readonly tracked: boolean,
  ) {}

  /**
   * Gives each record its key and sets aside those already delivered with it: one query for the
   * batch. `fingerprintOf` is the record's source fingerprint (the delivered one, for a delete).
   */
  async admit(records: WriteRecord[], fingerprintOf: (key: string) => string): Promise<Admission> {
    const ledger = new Map<string, Delivered>();
    if (this.tracked && records.length > 0) {
      const rows = await viaClient(
        this.pool,
        db()
          .selectFrom("sync_deliveries")
          .select(["primary_key", "idempotency_key", "seq"])
          .where("sync_id", "=", this.syncId)
          .where("primary_key", "=", (eb) => eb.fn.any(eb.val(records.map((r) => r.key)))),
      );
      for (const r of rows) ledger.set(r.primary_key, { key: r.idempotency_key, seq: r.seq });
    }
    const admission: Admission = { send: [], delivered: [] };
    for (const record of records) {
      const parts = { syncId: this.syncId, primaryKey: record.key, action: record.action, fingerprint: fingerprintOf(record.key), generation: this.generation };
      const last = ledger.get(record.key);
      if (last && idempotencyKey({ ...parts, seq: last.seq }) === last.key) {
        const reason = `${ALREADY_DELIVERED} ${last.key}; not sent again.`;
        admission.delivered.push({ record: { ...record, idempotencyKey: last.key }, reason, log: deliveredLog(reason) });
        continue;
      }
      const seq = (last?.seq ?? 0) + 1;
      const sent = { ...record, idempotencyKey: idempotencyKey({ ...parts, seq }) };
      this.seqOf.set(sent, seq);
      admission.send.push(sent);
    }
    return admission;
  }

  /** The loader's hook after a request: the records the destination accepted, written at once. */
  async delivered(records: WriteRecord[]): Promise<void> {
    if (!this.tracked) return;
    const keys: string[] = [];
    const ids: string[] = [];
    const seqs: number[] = [];
    for (const r of records) {
      const seq = this.seqOf.get(r);
      if (seq === undefined || r.idempotencyKey === undefined) continue;
      keys.push(r.key);
      ids.push(r.idempotencyKey);
      seqs.push(seq);
    }
    if (keys.length === 0) return;
    await this.pool.query(
      `INSERT INTO sync_deliveries (sync_id, primary_key, idempotency_key, seq, delivered_at)
       SELECT $1, x.k, x.i, x.s, now() FROM unnest($2::text[], $3::text[], $4::int[]) AS x(k, i, s)
       ON CONFLICT (sync_id, primary_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key, seq = EXCLUDED.seq, delivered_at = now()`,
      [this.syncId, keys, ids, seqs],
    );
  }
}

function deliveredLog(reason: string): RecordLog {
  return { request: { line: "Not sent: the destination already received this record in an earlier attempt." }, response: { line: reason }, level: "info" };
}

/** The run's ledger when its destination's writes are not idempotent; undefined otherwise. */
export function deliveryLedgerFor(ctx: RunContext, pool: Pool, tracksSync: boolean): DeliveryLedger | undefined {
  if (ctx.destination.definition.idempotentWrites !== false) return undefined;
  if (!tracksSync) return new DeliveryLedger(pool, ctx.sync.id, `test:${ctx.run.id}`, false);
  return new DeliveryLedger(pool, ctx.sync.id, ctx.sync.syncMode === "full_refresh" ? `run:${ctx.run.id}` : "", true);
}

/**
 * send-batch.ts's one call: the records to send (with their keys), after adding an outcome for each
 * record already delivered. Records of idempotent destinations pass unchanged.
 */
export async function admitDeliveries(
  attempt: { ledger?: DeliveryLedger; ctx: Pick<RunContext, "scrub"> },
  records: WriteRecord[],
  items: Map<string, Item>,
  results: Outcome[],
): Promise<WriteRecord[]> {
  if (!attempt.ledger) return records;
  const { send, delivered } = await attempt.ledger.admit(records, (key) => (items.get(key) as Item).fingerprint);
  for (const d of delivered) results.push({ item: items.get(d.record.key) as Item, ok: true, skipped: true, error: d.reason, log: d.log });
  return send;
}
