// The blast-radius guard of a live sync's micro-batches (docs/live-syncs.md, "The guard"). The
// backfill is checked like any run's read (plan/guard-step.ts); after it, each micro-batch is checked
// before anything of it is sent. The limits count across the rolling run, as they count across an
// ordinary run: the updates and deletes of this micro-batch plus those the rolling run already sent
// since it began streaming (or since its approval), against the rows the sync tracked when it began.
// Per micro-batch they would bind nothing: a mass delete arrives in slices of ENGINE_BATCH_SIZE keys
// or one second, each under any percentage. A micro-batch that would go over is not sent and its
// position not acknowledged (the slot keeps it); the rolling run is held as needs_approval with the
// plan of that micro-batch (counts, the keys it would update and delete, samples). Approving queues
// the run again: it streams from its saved position, the slot hands the same changes over again, and
// the changes the approved plan named go on without counting; any others count as before.
import "server-only";
import type { Row } from "@/lib/connectors/types";
import { effectiveGuard, guardInForce, guardViolations, type EffectiveGuard } from "@/lib/sync-rules/guard";
import { deletePayload } from "@/lib/sync-rules/mapping";
import type { Item } from "../batch";
import type { RunContext } from "../context";
import { isApprovedPlan, type ApprovedPlan, type StoredPlan } from "../plan/approval";
import { changeKeysOf, type ChangeKeys } from "../plan/change-keys";
import { HELD_PLAN_SAMPLES } from "../plan/guard-step";
import type { PlanCounts, PlanSample, SyncPlan } from "../plan/planner";
import { mapItems } from "../send-batch";

const n = (v: number) => v.toLocaleString("en-US");

/** What a micro-batch would change, by the guard's count (inserts are never limited). */
export interface MicroBatchChanges {
  /** Rows the micro-batch re-read from the model. */
  read: number;
  /** Rows unchanged since they were last delivered (a replay, or a change that changed nothing sent). */
  unchanged: number;
  insert: Item[];
  update: Item[];
  delete: Item[];
}

/** Splits a micro-batch's items (diffed rows and deletes) by what the guard counts them as. */
export function microBatchChanges(ctx: Pick<RunContext, "sync">, items: readonly Item[], read: number, unchanged: number): MicroBatchChanges {
  const out: MicroBatchChanges = { read, unchanged, insert: [], update: [], delete: [] };
  for (const item of items) {
    if (item.action === "destination_delete") out.delete.push(item);
    // Update mode writes only rows the destination has: a row new to the sync is an update there (as the plan counts it).
    else if (item.action === "destination_update" || ctx.sync.writeMode === "update") out.update.push(item);
    // Insert mode skips rows the destination has: a changed row is never sent, so it is no update.
    else if (item.action === "destination_insert") out.insert.push(item);
  }
  if (ctx.sync.writeMode === "insert") out.update = [];
  return out;
}

/** The approved keys of one action not yet used, or, past the kept bound, the exact set approved. */
class ApprovedKeys {
  private readonly keys: Set<string> | null;
  private used = false;

  constructor(private readonly approved: ChangeKeys) {
    this.keys = approved.keys === null ? null : new Set(approved.keys);
  }

  /** Takes the approved ones out of `items` (each approved key once); returns those that still count. */
  take(items: Item[]): Item[] {
    if (this.keys !== null) {
      return items.filter((i) => !this.keys?.delete(i.key));
    }
    // Too many keys to keep one by one: only the very set approved goes on, once.
    if (this.used || items.length === 0) return items;
    const now = changeKeysOf(items.map((i) => i.key));
    if (now.count !== this.approved.count || now.digest !== this.approved.digest) return items;
    this.used = true;
    return [];
  }
}

/** The verdict on one micro-batch. */
export type LiveVerdict = { go: true } | { go: false; plan: SyncPlan; message: string };

export class LiveGuard {
  private readonly guard: EffectiveGuard;
  /** Updates and deletes sent (or admitted) since the attempt began streaming, beyond what was approved. */
  private counted = { update: 0, delete: 0 };
  private readonly approved: { update: ApprovedKeys; delete: ApprovedKeys } | null;

  private constructor(
    private readonly ctx: RunContext,
    /** Rows the sync tracked when the rolling run began streaming: what the percentages are of. */
    private readonly tracked: number,
    approval: ApprovedPlan | null,
  ) {
    this.guard = effectiveGuard(ctx.sync);
    this.approved = approval ? { update: new ApprovedKeys(approval.changes.update), delete: new ApprovedKeys(approval.changes.delete) } : null;
  }

  /** Null when no limit is in force: micro-batches then cost nothing more. */
  static async for(ctx: RunContext, tracked: () => Promise<number>): Promise<LiveGuard | null> {
    if (!guardInForce(ctx.sync)) return null;
    const stored = (ctx.run.plan ?? null) as StoredPlan | null;
    const approval = stored !== null && isApprovedPlan(stored.approval) ? stored.approval : null;
    // Only a micro-batch's approval (never a full read's: that of a backfill held by guard-step.ts).
    return new LiveGuard(ctx, await tracked(), approval?.full_read === false ? approval : null);
  }

  /** Whether the micro-batch may be sent; counted as sent when it may. */
  async check(changes: MicroBatchChanges): Promise<LiveVerdict> {
    const update = this.approved ? this.approved.update.take(changes.update) : changes.update;
    const del = this.approved ? this.approved.delete.take(changes.delete) : changes.delete;
    const facts = { tracked: this.tracked, keyed: 1, update: this.counted.update + update.length, delete: this.counted.delete + del.length, fullRead: false };
    const exceeded = guardViolations(this.guard, facts);
    if (exceeded.length === 0) {
      this.counted = { update: facts.update, delete: facts.delete };
      return { go: true };
    }
    return { go: false, plan: await this.plan(changes, exceeded), message: this.message(changes, exceeded) };
  }

  private message(changes: MicroBatchChanges, exceeded: string[]): string {
    const before = this.counted.update + this.counted.delete;
    const sent = before > 0 ? `, with the ${n(this.counted.update)} updates and ${n(this.counted.delete)} deletes it already sent,` : "";
    const approved = this.approved ? " (beyond the changes that were approved)" : "";
    return (
      `Stopped before sending a micro-batch of ${n(changes.insert.length)} inserts, ${n(changes.update.length)} updates and ${n(changes.delete.length)} deletes: ` +
      `with it, this rolling run${sent} ${exceeded.join("; ")}${approved}. Nothing of it was sent; the source keeps it in the slot. ` +
      "Approve the run to send it and go on streaming, or cancel it."
    );
  }

  /** The held plan: this micro-batch's counts and keys (what an approval binds to), with a few samples. */
  private async plan(changes: MicroBatchChanges, exceeded: string[]): Promise<SyncPlan> {
    const { ctx } = this;
    const counts: PlanCounts = {
      read: changes.read,
      insert: changes.insert.length,
      update: changes.update.length,
      delete: changes.delete.length,
      skip: 0,
      unchanged: changes.unchanged,
      duplicate: 0,
      blank_key: 0,
    };
    return {
      planned_at: new Date().toISOString(),
      write_mode: ctx.sync.writeMode,
      counts,
      tracked: this.tracked,
      full_read: false,
      cursor: null,
      guard: this.guard,
      exceeded,
      changes: { update: changeKeysOf(changes.update.map((i) => i.key)), delete: changeKeysOf(changes.delete.map((i) => i.key)) },
      samples: await this.samples(changes),
    };
  }

  private async samples(changes: MicroBatchChanges): Promise<SyncPlan["samples"]> {
    const { ctx } = this;
    const rowOf = (item: Item): Row | null => item.row ?? (item.json === undefined ? null : (JSON.parse(item.json) as Row));
    const mapped = async (items: Item[]): Promise<PlanSample[]> => {
      const some = items.slice(0, HELD_PLAN_SAMPLES);
      if (some.length === 0) return [];
      const { records, byKey, failures } = await mapItems(ctx, some);
      return [
        ...records.map((r) => ({ primary_key: r.key, row: rowOf(byKey.get(r.key) as Item), payload: r.payload })),
        ...failures.map((f) => ({ primary_key: f.item.key, row: rowOf(f.item), payload: null, error: f.error })),
      ];
    };
    return {
      insert: await mapped(changes.insert),
      update: await mapped(changes.update),
      delete: changes.delete
        .slice(0, HELD_PLAN_SAMPLES)
        .map((i) => ({ primary_key: i.key, row: null, payload: deletePayload(ctx.mapping, ctx.model.primaryKey, i.key) })),
      skip: [],
    };
  }
}
