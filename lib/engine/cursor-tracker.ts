// The incremental cursor of a run. Batches are numbered in read order and commit in parallel, so the
// saved cursor moves only to the last batch of the gap-free recorded prefix: a failed or unfinished
// batch holds it back, and a crash never leaves it ahead of what was recorded.
import "server-only";
import { saveCursor } from "./run-store";

export class CursorTracker {
  private next = 0;
  private readonly recorded = new Map<number, string | undefined>();
  /** Saves in order, one at a time. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly syncId: number) {}

  /** Batch `seq` committed with `cursorValue` as its last row's cursor (undefined: none). */
  recordedBatch(seq: number, cursorValue: string | undefined): void {
    this.recorded.set(seq, cursorValue);
    let latest: string | undefined;
    while (this.recorded.has(this.next)) {
      latest = this.recorded.get(this.next) ?? latest;
      this.recorded.delete(this.next);
      this.next++;
    }
    if (latest === undefined) return;
    const value = latest;
    this.chain = this.chain.then(() => saveCursor(this.syncId, value));
  }

  /** Resolves once every save has finished; rejects with the first save that failed. */
  settled(): Promise<void> {
    return this.chain;
  }
}
