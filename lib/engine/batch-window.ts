// The read loop every general run shares: batches are read in order and numbered, and up to
// ENGINE_BATCHES_IN_FLIGHT of them are processed (diffed, sent, recorded) while the next is read.
// A batch that fails fails the attempt; a stop ends the loop; the source is closed on the way out.
import "server-only";
import type { RunAttempt } from "./run-attempt";
import { engineSettings } from "./settings";

export async function forEachBatch<B>(attempt: RunAttempt, batches: AsyncIterable<B>, process: (seq: number, batch: B) => Promise<void>): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  const inflight = new Set<Promise<void>>();
  const window = engineSettings.batchesInFlight;
  try {
    for (;;) {
      if (attempt.halted) break;
      const started = performance.now();
      const next = await iterator.next();
      attempt.timings.query += performance.now() - started;
      if (next.done) break;
      const task = process(attempt.nextSeq++, next.value).catch((err) => attempt.fail(err));
      inflight.add(task);
      void task.finally(() => inflight.delete(task));
      while (inflight.size >= window) await Promise.race(inflight);
    }
  } catch (err) {
    attempt.fail(err);
  } finally {
    await Promise.all(inflight);
    // Stops the source's read when we leave early; harmless when it already finished.
    await iterator.return?.().catch(() => undefined);
  }
}
