// Shared buffers for batches held as bytes (line-batch.ts: a batch's lines, its record rows, its
// fingerprints), reused once a batch is recorded. A new SharedArrayBuffer's pages are faulted in as
// they are first written, which cost a re-run's main thread more than the copy into it, and one is
// freed only when a garbage collection finds its last view dead, so the worker's memory grew over a
// run (bench/README.md, (u)). A buffer given back is zeroed (no batch ever sees another's bytes, as
// with a new one) and kept for the next batch of its size, a few a size and a bounded total, all
// dropped once no batch has taken one for a while.

/** Sizes are rounded up to a power of two, at least this: a buffer fits the next batches of about its size. */
const MIN_SIZE = 64 * 1024;
/** Larger buffers are never kept (a batch ends at 8 MiB of text, its messages a little more). */
const MAX_KEPT_SIZE = 16 * 1024 * 1024;
/** Buffers kept a size: the batches one run has in flight, with room for a second run. */
const KEPT_PER_SIZE = 12;
/**
 * Bytes kept of all sizes together: a full sync in flight holds ~30 MiB. Without it a tenant's rows
 * of megabytes could leave a dozen buffers of every size kept while any run of the worker goes on.
 */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
/** Kept buffers are dropped once none was taken for this long (an idle worker holds none). */
const IDLE_MS = 10_000;

function sizeClass(bytes: number): number {
  let size = MIN_SIZE;
  while (size < bytes) size *= 2;
  return size;
}

export class SharedBuffers {
  private readonly kept = new Map<number, SharedArrayBuffer[]>();
  /** Buffers taken and not given back: only these may be given back (once), so none is kept twice. */
  private readonly lent = new WeakSet<SharedArrayBuffer>();
  private keptBytes = 0;
  private lastTaken = 0;
  private timer: NodeJS.Timeout | null = null;

  /** A zeroed buffer of `bytes` bytes, viewing the start of a shared one. */
  take(bytes: number): Buffer {
    this.lastTaken = performance.now();
    const size = sizeClass(bytes);
    // One never kept is made to measure, not to its size class.
    if (size > MAX_KEPT_SIZE) return this.lend(new SharedArrayBuffer(bytes), bytes);
    const kept = this.kept.get(size)?.pop();
    if (kept) this.keptBytes -= size;
    return this.lend(kept ?? new SharedArrayBuffer(size), bytes);
  }

  private lend(buffer: SharedArrayBuffer, bytes: number): Buffer {
    this.lent.add(buffer);
    return Buffer.from(buffer, 0, bytes);
  }

  /**
   * Gives back a buffer `take` answered, to be reused: nothing may read or write it after (a buffer
   * that anything outside this process may still read, such as a socket write that failed, is
   * `forget`-ten instead). Any other buffer, or one given back already, is left alone.
   */
  give(view: Buffer): void {
    const buffer = view.buffer;
    if (!(buffer instanceof SharedArrayBuffer) || !this.lent.has(buffer)) return;
    this.lent.delete(buffer);
    if (buffer.byteLength > MAX_KEPT_SIZE) return;
    const list = this.kept.get(buffer.byteLength) ?? [];
    if (list.length >= KEPT_PER_SIZE || this.keptBytes + buffer.byteLength > MAX_KEPT_BYTES) return;
    // Only the view was written: the rest is zero still.
    view.fill(0);
    list.push(buffer);
    this.keptBytes += buffer.byteLength;
    this.kept.set(buffer.byteLength, list);
    this.timer ??= setTimeout(() => this.dropIdle(), IDLE_MS).unref();
  }

  /** The buffer is never given back: it is left to the garbage collector, as if it had not been taken. */
  forget(view: Buffer): void {
    if (view.buffer instanceof SharedArrayBuffer) this.lent.delete(view.buffer);
  }

  /** Buffers kept, of every size (tests). */
  keptCount(): number {
    let n = 0;
    for (const list of this.kept.values()) n += list.length;
    return n;
  }

  /** Bytes kept, of every size (tests). */
  keptSize(): number {
    return this.keptBytes;
  }

  private dropIdle(): void {
    this.timer = null;
    const idle = performance.now() - this.lastTaken;
    if (idle >= IDLE_MS) {
      this.kept.clear();
      this.keptBytes = 0;
    } else this.timer = setTimeout(() => this.dropIdle(), IDLE_MS - idle).unref();
  }
}

/** The process's pool: the batches of every run of this worker. */
export const sharedBuffers = new SharedBuffers();
