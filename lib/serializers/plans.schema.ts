// A plan: what a general run of a sync would do (POST /syncs/{id}/plan answers it with sample rows;
// a guarded run keeps its counts in sync_runs.plan). Built by lib/engine/plan/planner.ts; the shapes
// are documented in docs/plan-and-guard.md.
import { z } from "zod";
import { WriteMode } from "@/lib/generated/prisma/enums";
import { dateTime } from "./resource";

const count = (what: string) => z.number().int().min(0).describe(what);

export const planCountsSchema = z
  .strictObject({
    read: count("Rows the model returned."),
    insert: count("Rows the run would insert (keys new to the sync)."),
    update: count("Rows the run would update (changed since delivered, or failed before)."),
    delete: count("Tracked rows the run would delete (they left the model; mirror or delete detection only)."),
    skip: count("Rows the write mode would not send (update: key not in the destination; insert: key already there)."),
    unchanged: count("Rows unchanged since they were delivered: not sent."),
    duplicate: count("Rows whose key came earlier in the same read: not sent."),
    blank_key: count("Rows without a primary key value: not sent."),
  })
  .meta({ id: "PlanCounts" });

export const effectiveGuardSchema = z
  .strictObject({
    max_delete_percent: z.number().nullable().describe("Most deletes a run may make, % of tracked rows; null: no limit."),
    max_change_percent: z
      .number()
      .nullable()
      .describe("Most updates plus deletes a run may make, % of tracked rows; null: no limit. Default 50 for a SaaS destination (CRM, marketing, …), else none."),
    max_change_rows: z.number().nullable().describe("Most updates plus deletes a run may make, in rows; null: no limit (the default)."),
    refuse_empty_extract: z.boolean().describe("A full read with no rows is held when the sync tracks rows."),
  })
  .meta({ id: "EffectiveGuard" });

/** What a run planned (sync_runs.plan): counts and the guard's verdict, no rows. */
export const runPlanSchema = z
  .strictObject({
    planned_at: dateTime(),
    write_mode: z.enum(WriteMode),
    counts: planCountsSchema,
    tracked: count("Rows the sync tracked before the run: what the percentages are of."),
    full_read: z.boolean().describe("The whole model is read (no incremental cursor): deletes and the empty-extract check apply."),
    cursor: z
      .strictObject({ field: z.string(), from: z.string().nullable().describe("The saved cursor value the read starts from; null: from the start.") })
      .nullable()
      .describe("Incremental syncs: where the read starts."),
    guard: effectiveGuardSchema,
    exceeded: z.array(z.string()).describe("The limits the run would break, as sentences with the numbers; empty when it may go on."),
  })
  .meta({ id: "RunPlan" });
export type RunPlanAttributes = z.infer<typeof runPlanSchema>;

export const planSampleSchema = z
  .strictObject({
    primary_key: z.string(),
    row: z.record(z.string(), z.unknown()).nullable().describe("The source row as read; null for a delete (the row left the model)."),
    payload: z.record(z.string(), z.unknown()).nullable().describe("The mapped destination payload; null when the mapping fails (see error)."),
    reason: z.string().optional().describe("skip: why the write mode would not send the row."),
    error: z.string().optional().describe("The mapping's error: the run would record this row failed."),
  })
  .meta({ id: "PlanSample" });

/** A few rows per action, in read order (deletes in key order). */
export const planSamplesSchema = z
  .strictObject({ insert: z.array(planSampleSchema), update: z.array(planSampleSchema), delete: z.array(planSampleSchema), skip: z.array(planSampleSchema) })
  .meta({ id: "PlanSamples" });

/** POST /syncs/{id}/plan. */
export const syncPlanSchema = z
  .strictObject({
    data: runPlanSchema.extend({
      sync_id: z.number().int(),
      samples: planSamplesSchema.describe("Up to sample_size rows per action, in read order (deletes in key order)."),
    }),
  })
  .meta({ id: "SyncPlan" });
export type SyncPlanBody = z.infer<typeof syncPlanSchema>;

/** GET /syncs/{sync_id}/sync_runs/{id}/plan: the plan a run kept, with the sample rows it was held with. */
export const syncRunPlanSchema = z
  .strictObject({
    data: runPlanSchema.extend({
      sync_run_id: z.number().int(),
      samples: planSamplesSchema
        .nullable()
        .describe(
          "The rows a run held for approval kept, up to 5 per action: what it would insert, update, delete or skip. null once it was approved (it planned again) and for runs that were never held.",
        ),
    }),
  })
  .meta({ id: "SyncRunPlan" });
export type SyncRunPlanBody = z.infer<typeof syncRunPlanSchema>;
