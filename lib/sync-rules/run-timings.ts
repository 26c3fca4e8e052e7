// A run's timings: milliseconds spent per phase, as the engine stores them (sync_runs.timings) and
// the API shows them. One shape for both, read back through storedRunTimingsSchema.
import { z } from "zod";

const ms = (phase: string) => z.number().describe(`Milliseconds ${phase}.`);

export const runTimingsSchema = z
  .object({
    query: ms("reading the model"),
    diff: ms("comparing rows with what earlier runs sent"),
    load: ms("sending to the destination"),
    wait: ms("waiting for the destination's rate limit or Retry-After"),
    record: ms("of bookkeeping: the per-batch transaction of records, states, counters and cursor"),
  })
  .meta({ id: "SyncRunTimings" });
export type RunTimings = z.infer<typeof runTimingsSchema>;

export const NO_TIMINGS: RunTimings = { query: 0, diff: 0, load: 0, wait: 0, record: 0 };

/** A stored value: a run not started yet holds {}, and a phase an older version did not time counts 0. */
export const storedRunTimingsSchema = z.preprocess(
  (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? { ...NO_TIMINGS, ...v } : v),
  runTimingsSchema,
);
