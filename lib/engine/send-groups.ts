// Sparse changes go out together. A re-run where few rows changed finds a handful of rows to send in
// each read batch; sending and recording each handful alone costs a destination transaction and a
// bookkeeping transaction per batch, which was most of a 1%-changed re-run's time (bench/README.md).
// So a diffed batch waits in a group, and the group is sent as one and recorded in one transaction
// once it holds half a batch of rows (to send or to rebaseline), SEND_GROUP_MAX_BATCHES batches, or a
// batch read a second ago, and at the end of the read. A batch with many rows to send goes at once (a
// first sync's batches never wait). The guarantees are those of one batch: a group's counters commit
// with its records, and the cursor passes a batch only once the group holding it is recorded (a
// crash re-reads it) and only if all its rows were sent (a stop re-reads the rest).
import "server-only";
import { itemList, outcomeCount, type Item, type Items, type Outcomes } from "./batch";
import type { BatchRecorder } from "./record-batch";
import { zeroCounters, type RunCounters } from "./run-store";
import { engineSettings } from "./settings";

/** Batches a group holds at most: bounds the rows read but not yet counted or passed by the cursor. */
export const SEND_GROUP_MAX_BATCHES = 16;
/** A group is sent once its first batch was read this long ago (a slow source's batches go alone). */
export const SEND_GROUP_MAX_WAIT_MS = 1000;

/** One read batch after its diff. */
export interface GroupedBatch {
  seq: number;
  items: Items;
  /** The batch's read counters (rows read, unchanged, duplicates). */
  delta: RunCounters;
  /** The batch's last cursor value (incremental reads). */
  cursorValue?: string;
  /** Unchanged rows whose state takes the source's fingerprint (batch-diff.ts). */
  rebaselined?: Item[];
  /** Settles once the items' fingerprints are computed (sent before, recorded after: fingerprints-off-thread.ts). */
  ready?: Promise<void>;
  /** Called once the batch is recorded: nothing reads its items after (its buffers may be reused). */
  done?: () => void;
}

export class SendGroups {
  private held: GroupedBatch[] = [];
  private heldItems = 0;
  private firstHeldAt = 0;

  constructor(
    /** The destination's outcomes for the items (none for items a stop left unsent). */
    private readonly send: (items: Items) => Promise<Outcomes>,
    private readonly recorder: BatchRecorder,
    /** Rows that make a group worth sending on its own. */
    private readonly dueItems = Math.max(1, Math.floor(engineSettings.batchSize / 2)),
  ) {}

  /** Adds a diffed batch; sends and records the group when it is due. */
  async add(batch: GroupedBatch): Promise<void> {
    if (this.held.length === 0) this.firstHeldAt = performance.now();
    this.held.push(batch);
    // Rebaselined rows are written with the group too, and each holds its parsed row until then.
    this.heldItems += batch.items.length + (batch.rebaselined?.length ?? 0);
    const due =
      this.heldItems >= this.dueItems ||
      this.held.length >= SEND_GROUP_MAX_BATCHES ||
      performance.now() - this.firstHeldAt >= SEND_GROUP_MAX_WAIT_MS;
    if (due) await this.flush();
  }

  /** Sends and records whatever is held: at the end of the read (a stop sends nothing and only counts). */
  async flush(): Promise<void> {
    const group = this.held;
    if (group.length === 0) return;
    this.held = [];
    this.heldItems = 0;
    const items = group.length === 1 ? group[0].items : group.flatMap((b) => itemList(b.items));
    const outcomes = await this.send(items);
    // A stop may leave some of the rows unsent: the cursor still passes each batch all of whose rows
    // have their outcome here (one without rows to send among them), as it would have alone.
    const answered = outcomeCount(outcomes) === items.length ? null : new Set<Item>(Array.isArray(outcomes) ? outcomes.map((o) => o.item) : []);
    const complete = (b: GroupedBatch) => answered === null || itemList(b.items).every((i) => answered.has(i));
    const last = group[group.length - 1];
    const delta = zeroCounters();
    for (const b of group) for (const k of Object.keys(delta) as (keyof RunCounters)[]) delta[k] += b.delta[k];
    const rebaselined = group.flatMap((b) => b.rebaselined ?? []);
    for (const b of group) await b.ready;
    await this.recorder.record({
      seq: last.seq,
      cursorValue: last.cursorValue,
      carried: group.slice(0, -1).map((b) => ({ seq: b.seq, cursorValue: b.cursorValue, complete: complete(b) })),
      outcomes,
      delta,
      rebaselined,
      complete: complete(last),
    });
    for (const b of group) b.done?.();
  }
}
