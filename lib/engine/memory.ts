// Keeps a long run's memory flat. V8 grows the heap lazily (up to gigabytes by default) while batches
// stream through, so RSS would climb with the row count although the live data stays small. Between
// batches, when the heap passes a soft limit, a full collection brings it back down. (A pass-through
// batch's lines live in SharedArrayBuffers, which V8 does not count: the memory log shows them as
// arrayBuffersMb. They come from a pool and go back to it once their batch is recorded
// (shared-buffers.ts), which keeps them flat; counting them here had made no flatter run.)
import v8 from "node:v8";
import vm from "node:vm";
import { logger } from "@/lib/logger";
import { engineSettings } from "./settings";

const SOFT_LIMIT_BYTES = engineSettings.heapSoftLimitBytes;

let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    // The documented way to reach gc() without starting node with --expose-gc.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    collect = typeof gc === "function" ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

let threshold = SOFT_LIMIT_BYTES;

/**
 * Call when a run starts: the previous run's live data (its key set) raised the threshold, and a
 * threshold that stayed high would let this run's heap, and the RSS, grow that much further.
 */
export function resetMemoryPressure(): void {
  threshold = SOFT_LIMIT_BYTES;
}

/** Call between batches: collects when the heap is above the soft limit; cheap otherwise. */
export function relieveMemoryPressure(): void {
  if (engineSettings.memoryLog) {
    const m = process.memoryUsage();
    logger.info({ rssMb: m.rss >> 20, heapTotalMb: m.heapTotal >> 20, heapUsedMb: m.heapUsed >> 20, externalMb: m.external >> 20, arrayBuffersMb: m.arrayBuffers >> 20 }, "memory");
  }
  if (v8.getHeapStatistics().used_heap_size < threshold) return;
  const gc = collector();
  if (!gc) return;
  gc();
  // When live data really is above the limit (a huge run's key set), collect less often, not every batch.
  const live = v8.getHeapStatistics().used_heap_size;
  threshold = Math.max(SOFT_LIMIT_BYTES, live * 1.5);
}
