// The sync run resource, as serializeSyncRun (./sync-runs.ts) builds it.
import { z } from "zod";
import { SyncRunStatus, SyncRunType, WriteMode } from "@/lib/generated/prisma/enums";
import { ESTIMATE_SOURCES } from "@/lib/sync-rules/run-estimate";
import { RUN_OUTCOMES } from "@/lib/sync-rules/run-outcome";
import { runTimingsSchema } from "@/lib/sync-rules/run-timings";
import { runPlanSchema } from "./plans.schema";
import { dateTime, resourceSchema } from "./resource";

export const runProgressSchema = z
  .strictObject({
    rows_read: z.number().int().describe("Rows read from the model so far (total_query_rows)."),
    estimated_rows: z
      .number()
      .int()
      .nullable()
      .describe(
        "Rows the run will read, fixed when it starts: the source's count of the model's rows then (estimate_source count) or what the previous run read (previous_run); null otherwise (no percent is then given).",
      ),
    estimate_source: z
      .enum(ESTIMATE_SOURCES)
      .nullable()
      .describe(
        "previous_run: what the sync's last successful full read of the same model read. count: the source counted the rows when the run started (a count bounded in rows and time, never a planner's guess). count_bound: that count stopped at its bound, see more_than_rows. unknown: no total (the count ran out of time or failed, or the source cannot count). null until the run has one (its first seconds; test runs).",
      ),
    more_than_rows: z
      .number()
      .int()
      .nullable()
      .describe("With estimate_source count_bound: the model returns more than this many rows (where the count stopped); no percent is built on it. Null otherwise."),
    percent: z
      .number()
      .int()
      .min(0)
      .max(100)
      .nullable()
      .describe("rows_read of estimated_rows, floored: at most 99 until the run succeeds; null without estimated_rows (a bound or an unknown total) or once the run read past it."),
    rows_per_second: z.number().nullable().describe("Rows read per second since the run started; null before the first rows."),
    eta_seconds: z.number().int().nullable().describe("While running: seconds left at that rate to read estimated_rows; null when unknown."),
    rate_limit_wait_seconds: z.number().describe("Time the run spent waiting for the destination's rate limit or Retry-After (timings.wait)."),
  })
  .meta({ id: "SyncRunProgress" });
export type RunProgressAttributes = z.infer<typeof runProgressSchema>;

export const syncRunAttributesSchema = z.strictObject({
  sync_id: z.number().int(),
  status: z.enum(SyncRunStatus),
  sync_run_type: z.enum(SyncRunType),
  started_at: dateTime().nullable(),
  finished_at: dateTime().nullable(),
  duration: z.number().nullable().describe("Seconds between start and finish; null until finished."),
  total_query_rows: z.number().int(),
  total_rows: z.number().int(),
  skipped_rows: z.number().int(),
  successful_rows: z.number().int(),
  failed_rows: z.number().int(),
  write_mode: z
    .enum(WriteMode)
    .nullable()
    .describe("The sync's write mode when the run started; null before it started. Records the mode skipped are counted in skipped_rows and total_rows and listed with status skipped."),
  duplicate_rows: z.number().int(),
  processed_rows: z.number().int(),
  timings: runTimingsSchema.describe("Milliseconds spent per phase of the run, over all its attempts."),
  error: z.string().nullable(),
  outcome: z
    .enum(RUN_OUTCOMES)
    .describe(
      "Derived, beside status: running; needs_approval (held by its sync's blast-radius limits before its first write, or a live sync's rolling run before a micro-batch: approve or cancel it); succeeded; succeeded_with_rejections (status success, failed_rows > 0); failed; canceled (stopped by someone: status failed with canceled_by, or canceled).",
    ),
  canceled_by: z
    .string()
    .nullable()
    .describe(
      "Who canceled the run (or disabled or deleted its sync while it ran); null when nobody did, and for callers who may read neither the members nor the audit log.",
    ),
  plan: runPlanSchema
    .nullable()
    .describe("What the run planned before its first write (a sync with blast-radius limits in force plans first); null when it did not plan."),
  approved_by: z
    .string()
    .nullable()
    .describe("Who approved the run after its limits held it; null when nobody did, and for callers who may read neither the members nor the audit log."),
  approved: z.boolean().describe("Someone approved the run after its sync's limits held it (approved_by names them to callers who may know)."),
  held: z.boolean().describe("Its plan broke its sync's limits, so it was held for approval (now or before it was approved or canceled)."),
  progress: runProgressSchema,
  waiting_until: dateTime()
    .nullable()
    .describe("Set while status is paused: the run waits for its destination's rate limit or Retry-After, holding no worker, and resumes then."),
  created_at: dateTime(),
  updated_at: dateTime(),
});

export type SyncRunAttributes = z.infer<typeof syncRunAttributesSchema>;

export const syncRunSchema = resourceSchema("sync_runs", syncRunAttributesSchema).meta({ id: "SyncRun" });
export type SyncRunResource = z.infer<typeof syncRunSchema>;

/** POST /schedule_syncs and DELETE /schedule_syncs/{sync_id}: a message and the run. */
export const syncRunMessageSchema = z.strictObject({ message: z.string(), data: syncRunSchema });
