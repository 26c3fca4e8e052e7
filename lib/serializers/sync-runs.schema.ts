// The sync run resource, as serializeSyncRun (./sync-runs.ts) builds it.
import { z } from "zod";
import { SyncRunStatus, SyncRunType } from "@/lib/generated/prisma/enums";
import { dateTime, json, resourceSchema } from "./resource";

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
  duplicate_rows: z.number().int(),
  processed_rows: z.number().int(),
  timings: json("Milliseconds spent per phase of the run."),
  error: z.string().nullable(),
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
