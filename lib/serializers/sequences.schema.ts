// The run-after list and the sequence run resources, as ./sequences.ts builds them.
import { z } from "zod";
import { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { SEQUENCE_STATUSES, STEP_STATES } from "@/lib/sync-rules/sequence-statuses";
import { dateTime, resourceSchema } from "./resource";

export const runAfterSchema = resourceSchema(
  "run_after",
  z.strictObject({
    sync_id: z.number().int(),
    sync_ids: z.array(z.number().int()).describe("The syncs this one runs after (its upstreams), ascending."),
    dependent_sync_ids: z.array(z.number().int()).describe("The syncs that run after this one, ascending."),
  }),
).meta({ id: "RunAfter" });
export type RunAfterResource = z.infer<typeof runAfterSchema>;

export const sequenceStepSchema = z
  .strictObject({
    sync_id: z.number().int(),
    sync_name: z.string(),
    run_after: z.array(z.number().int()).describe("Its upstream syncs that are steps of this sequence (as when the sequence started)."),
    state: z
      .enum(STEP_STATES)
      .describe(
        "waiting: not started, an upstream may still start it; running, needs_approval, success, failed: its run's; skipped: disabled or deleted, or every upstream in the sequence was skipped; not_run: it will not run in this sequence (reason says why).",
      ),
    reason: z.string().nullable().describe("Why it is waiting, skipped or not run; null otherwise."),
    sync_run_id: z.number().int().nullable(),
    run_status: z.enum(SyncRunStatus).nullable(),
    started_at: dateTime().nullable(),
    finished_at: dateTime().nullable(),
  })
  .meta({ id: "SequenceRunStep" });

export const sequenceRunSchema = resourceSchema(
  "sequence_runs",
  z.strictObject({
    sync_id: z.number().int().describe("The sync the sequence started from."),
    status: z
      .enum(SEQUENCE_STATUSES)
      .describe(
        "running while any step waits or runs; then needs_approval when a run waits for approval; failed when any step failed or will not run; else success (skipped steps do not fail it).",
      ),
    triggered_by: z.string().nullable().describe("Who started it; shown to callers who may read the members or the audit log, else null."),
    created_at: dateTime(),
    finished_at: dateTime().nullable().describe("When its last run finished, once the status is final."),
    steps: z.array(sequenceStepSchema).describe("The starting sync first, then the syncs downstream of it, breadth-first."),
  }),
).meta({ id: "SequenceRun" });
export type SequenceRunResource = z.infer<typeof sequenceRunSchema>;
