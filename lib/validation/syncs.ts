// Request shapes of the sync endpoints, and the schedule rules (docs/architecture.md, "API rules", 5; shared
// by the create schema, the update service and the console form).
import { z } from "zod";
import { sortSchema } from "./sort";
import { cronExpressionError, isValidTimezone } from "@/lib/sync-rules/schedule";
import { NULL_POLICIES, type NullPolicy } from "@/lib/sync-rules/mapping";
import type { FieldError } from "@/lib/errors";
import { intId, queryIntId } from "./ids";
import { ScheduleType, SyncIntervalUnit, SyncMode, SyncStatus } from "@/lib/generated/prisma/enums";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

export const SCHEDULE_TYPES: readonly ScheduleType[] = Object.values(ScheduleType);
export const SYNC_MODES: readonly SyncMode[] = Object.values(SyncMode);
export const SYNC_INTERVAL_UNITS: readonly SyncIntervalUnit[] = Object.values(SyncIntervalUnit);
export const SYNC_STATUSES: readonly SyncStatus[] = Object.values(SyncStatus);

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(", ")}` });

/** One field mapping; the older object form {source_column: "dest.path"} is accepted too. */
export const fieldMappingSchema = z.object({
  from: z
    .unknown()
    .refine((v) => typeof v !== "string" || v.length <= 10_000, "must be at most 10000 characters")
    .describe("standard: the source column; static: the literal value; template: a Liquid template."),
  to: z.string({ error: "is required (the destination field)" }).min(1, "must not be empty").max(1000, "must be at most 1000 characters").describe("Dotted path in the destination payload; items[].sku appends."),
  mapping_type: z.enum(["standard", "static", "template"], oneOf(["standard", "static", "template"])).default("standard"),
  // A check, not z.enum: a failed enum aborts the union below, which then reports only its own
  // generic sentence; a failed check keeps this field's sentence (sync.configuration.0.null_policy).
  null_policy: z
    .custom<NullPolicy>(() => true)
    .refine(
      (v) => NULL_POLICIES.includes(v),
      'must be "write" (send an empty value as null) or "skip" (leave the field out, so the destination keeps its value)',
    )
    .meta({ type: "string", enum: [...NULL_POLICIES] })
    .optional()
    .describe("When the value is empty (null or missing; a template that renders nothing): write sends null (default), skip leaves the field out of the payload so the destination keeps its value."),
});

export const syncConfigurationSchema = z
  .union([z.array(fieldMappingSchema), z.record(z.string(), z.string())], {
    error: "must be an array of {from, to, mapping_type, null_policy?} (or an object {source_column: destination_field})",
  })
  .describe("Field mappings from model columns to destination fields; empty sends rows as they are.");

const scheduleFields = {
  schedule_type: z.enum(SCHEDULE_TYPES, oneOf(SCHEDULE_TYPES)).describe("manual, interval, cron_expression, or automated (cron when given, else interval)."),
  sync_interval: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    // "> 0" is a schedule rule (scheduleErrors): it only matters when the schedule uses the interval.
    .max(1_000_000, "is too large")
    .nullish()
    .describe("Run every N units (interval and automated schedules)."),
  sync_interval_unit: z.enum(SYNC_INTERVAL_UNITS, oneOf(SYNC_INTERVAL_UNITS)).nullish().describe("Unit of sync_interval."),
  cron_expression: z.string().trim().max(200, "must be at most 200 characters").nullish().describe("5-field cron expression (minute hour day month weekday)."),
  timezone: z.string().trim().max(64).nullish().describe("IANA time zone the cron expression is read in; default UTC."),
};

const percentLimit = (what: string) =>
  z
    .number({ error: "must be a percentage from 0 to 100, or null to turn the limit off" })
    .min(0, "must be a percentage from 0 to 100, or null to turn the limit off")
    .max(100, "must be a percentage from 0 to 100, or null to turn the limit off")
    .nullable()
    .optional()
    .describe(`${what} Left out: the default for the sync; null: no limit.`);

/**
 * Blast-radius limits a general run checks against its plan before its first write
 * (docs/plan-and-guard.md). Strict: a misspelt limit must not quietly leave the default in force.
 */
export const guardSchema = z
  .strictObject(
    {
      max_delete_percent: percentLimit("Most deletes a run may make, as a % of the rows the sync tracks (default 20 when the sync deletes)."),
      max_change_percent: percentLimit(
        "Most updates plus deletes a run may make, as a % of the rows the sync tracks (default 50 when the destination is a SaaS tool: CRM, marketing, ads, support, …; else none).",
      ),
      max_change_rows: z
        .number({ error: "must be a whole number of rows (0 or more), or null to turn the limit off" })
        .int("must be a whole number of rows (0 or more), or null to turn the limit off")
        .min(0, "must be a whole number of rows (0 or more), or null to turn the limit off")
        .max(Number.MAX_SAFE_INTEGER, "must be a whole number of rows (0 or more), or null to turn the limit off")
        .nullable()
        .optional()
        .describe("Most updates plus deletes a run may make, in rows (an API quota, a bill). Left out: no limit; null: no limit."),
      refuse_empty_extract: z
        .boolean({ error: "must be true, false, or null for the default" })
        .nullable()
        .optional()
        .describe("Hold a run whose full read returns no rows while the sync tracks some (default true when the sync deletes). null: the default."),
    },
    // Only the wrong-type message is ours: an unknown key keeps the message that names it.
    { error: (issue) => (issue.code === "invalid_type" ? "must be an object {max_delete_percent, max_change_percent, max_change_rows, refuse_empty_extract}, or null for the defaults" : undefined) },
  )
  .nullable()
  .describe("Blast-radius limits; null or left out: the defaults for the sync's write mode (on when it deletes).");
export type GuardInput = z.infer<typeof guardSchema>;

/** The fields of a sync in the create body, before the schedule rules (the console form reuses them). */
export const syncFields = {
  name: z.string().trim().max(255, "must be at most 255 characters").nullish().describe("Shown in the console."),
  description: z.string().max(2000, "must be at most 2000 characters").nullish().describe("Free text."),
  source_id: intId("The source connector; it must be the model's connector."),
  destination_id: intId("The destination connector; it must have a catalog."),
  model_id: intId("The model whose rows are sent."),
  configuration: syncConfigurationSchema.nullish(),
  sync_mode: z.enum(SYNC_MODES, oneOf(SYNC_MODES)).describe("full_refresh re-sends every row each run; incremental only new and changed rows."),
  stream_name: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(255).describe("One of the destination catalog's streams."),
  cursor_field: z.string().trim().max(255).nullish().describe("Incremental: the column read from the saved position onwards. Cannot change after create."),
  detect_deletes: z.boolean({ error: "must be true or false" }).optional().describe("Send destination_delete for rows that vanished from the model."),
  guard: guardSchema.optional(),
  live: z
    .boolean({ error: "must be true or false" })
    .optional()
    .describe(
      "Stream the source's changes as they commit (PostgreSQL with wal_level=logical; the model one table, filtered on its own columns): a backfill, then rolling runs. Our extension, not the reference's; the schedule stays as sent.",
    ),
  write_mode: z
    .enum(WRITE_MODES, oneOf(WRITE_MODES))
    .optional()
    .describe(
      "How rows are written (docs/write-modes.md): upsert (default), update (existing keys only), insert (new keys only), mirror (upsert and delete rows that left the model). Must be one the destination supports (its definition's supported_write_modes); left out on create: upsert, or the destination's only mode.",
    ),
  ...scheduleFields,
};

export interface ScheduleInput {
  schedule_type: (typeof SCHEDULE_TYPES)[number];
  sync_interval?: number | null;
  sync_interval_unit?: (typeof SYNC_INTERVAL_UNITS)[number] | null;
  cron_expression?: string | null;
  timezone?: string | null;
}

/**
 * What a schedule runs on: its cron expression (trimmed; null when blank), and whether the cron or
 * the interval fields apply. `automated` runs on cron when one is given, else on the interval.
 */
export function scheduleUses(s: ScheduleInput): { cron: string | null; useCron: boolean; useInterval: boolean } {
  const cron = s.cron_expression?.trim() || null;
  return {
    cron,
    useCron: s.schedule_type === "cron_expression" || (s.schedule_type === "automated" && cron !== null),
    useInterval: s.schedule_type === "interval" || (s.schedule_type === "automated" && cron === null),
  };
}

/** The schedule rules, as field errors under `prefix` (e.g. "sync"); [] when the schedule is usable. */
export function scheduleErrors(s: ScheduleInput, prefix = "sync"): FieldError[] {
  const errors: FieldError[] = [];
  const at = (field: string) => `${prefix}.${field}`;
  const { cron, useCron, useInterval } = scheduleUses(s);
  if (s.timezone && !isValidTimezone(s.timezone)) {
    errors.push({ path: at("timezone"), message: `"${s.timezone}" is not a known time zone; use an IANA name such as Europe/Paris` });
  }
  if (useCron) {
    if (!cron) errors.push({ path: at("cron_expression"), message: "is required when schedule_type is cron_expression" });
    else if (!s.timezone || isValidTimezone(s.timezone)) {
      const problem = cronExpressionError(cron, s.timezone || "UTC");
      if (problem) errors.push({ path: at("cron_expression"), message: problem });
    }
  }
  if (useInterval) {
    const why = s.schedule_type === "automated" ? "when schedule_type is automated without a cron_expression" : "when schedule_type is interval";
    if (!s.sync_interval || s.sync_interval <= 0) errors.push({ path: at("sync_interval"), message: `must be greater than 0 ${why}` });
    if (!s.sync_interval_unit) errors.push({ path: at("sync_interval_unit"), message: `is required ${why}` });
  }
  return errors;
}

/** The schedule rules as issues of a sync object (a refinement of the create body and its form). */
export function refineSchedule(sync: ScheduleInput, ctx: z.RefinementCtx): void {
  for (const e of scheduleErrors(sync, "")) ctx.addIssue({ code: "custom", path: [e.path.slice(1)], message: e.message });
}

export const createSyncSchema = z.object({
  sync: z
    .object(syncFields, { error: "is required: send {sync: {source_id, destination_id, model_id, schedule_type, sync_mode, stream_name}}" })
    .superRefine(refineSchedule),
});
export type CreateSyncInput = z.infer<typeof createSyncSchema>["sync"];

/** Every field optional; the schedule rules are checked on the merged result by the service. */
export const updateSyncSchema = z.object({
  sync: z.object(
    {
      name: syncFields.name,
      description: syncFields.description,
      source_id: syncFields.source_id.optional(),
      destination_id: syncFields.destination_id.optional(),
      model_id: syncFields.model_id.optional(),
      configuration: syncFields.configuration,
      sync_mode: syncFields.sync_mode.optional(),
      stream_name: syncFields.stream_name.optional(),
      cursor_field: syncFields.cursor_field,
      detect_deletes: syncFields.detect_deletes,
      guard: syncFields.guard,
      live: syncFields.live,
      write_mode: syncFields.write_mode,
      schedule_type: scheduleFields.schedule_type.optional(),
      sync_interval: scheduleFields.sync_interval,
      sync_interval_unit: scheduleFields.sync_interval_unit,
      cron_expression: scheduleFields.cron_expression,
      timezone: scheduleFields.timezone,
    },
    { error: "is required: send {sync: {...fields to change}}" },
  ),
});
export type UpdateSyncInput = z.infer<typeof updateSyncSchema>["sync"];

export const enableSyncSchema = z.object({
  enable: z.boolean({ error: "is required: true to enable the sync, false to disable it" }).describe("true: enable (status pending); false: disable."),
});
export type EnableSyncInput = z.infer<typeof enableSyncSchema>;

export const listSyncsQuerySchema = z.object({
  status: z.enum(SYNC_STATUSES, oneOf(SYNC_STATUSES)).optional().describe("Only syncs in this status."),
  needs_attention: z
    .enum(["true", "false", "1", "0"], { error: "must be true or false" })
    .transform((v) => v === "true" || v === "1")
    .optional()
    .describe(
      "true: only the syncs someone should look at (failing, their latest general run failed or had rows refused, or a run waits for approval); false: only the others. The same judgement as the console's sync badge.",
    ),
  model_id: queryIntId().optional(),
  source_id: queryIntId().optional(),
  destination_id: queryIntId().optional(),
  sort: sortSchema({ name: "name", status: "status", next_run_at: "nextRunAt", created_at: "createdAt", updated_at: "updatedAt", last_run_at: "lastRunAt" }),
});
export type ListSyncsQuery = z.infer<typeof listSyncsQuerySchema>;

export const scheduleSyncSchema = z.object({
  schedule_sync: z.object({ sync_id: intId("The sync to run now.") }, { error: "is required: send {schedule_sync: {sync_id}}" }),
});
export type ScheduleSyncInput = z.infer<typeof scheduleSyncSchema>;

/** POST …/syncs/{sync_id}/test: the row to send, by its primary key value; none sends a random row. */
// Strict: a misspelt member must not quietly turn a picked row into a random one.
export const testSyncSchema = z
  .strictObject({
    primary_key: z
      .union([z.string(), z.number()], { error: "must be the primary key value of the row to send, as text or a number" })
      .transform((v) => String(v).trim())
      .pipe(z.string().min(1, { error: "must not be empty (leave it out to send a random row)" }).max(1000, { error: "must be at most 1000 characters" }))
      .optional()
      .describe("The primary key value of the row to send; leave it out for a random row of the model."),
  })
  .optional()
  .describe("Optional: leave the body out (or send {}) to send a random row.");
export type TestSyncInput = NonNullable<z.infer<typeof testSyncSchema>>;

/** POST …/syncs/{id}/plan: how many sample rows per action to return. */
/**
 * Unsaved changes to plan with: the fields of PUT /syncs/{id} that decide what a run sends (a new
 * mapping re-sends every row once). Our extension, not the reference's.
 */
export const proposedSyncSchema = z
  .strictObject(
    {
      configuration: syncFields.configuration,
      sync_mode: syncFields.sync_mode.optional(),
      write_mode: syncFields.write_mode,
      detect_deletes: syncFields.detect_deletes,
      guard: syncFields.guard,
    },
    {
      error: (issue) =>
        issue.code === "invalid_type" ? "must be an object of the changes to plan with: {configuration, sync_mode, write_mode, detect_deletes, guard}" : undefined,
    },
  )
  .describe(
    "Plan as if these changes were saved (as PUT /syncs/{id} would take them), without saving them: what the next run would send after editing the mapping, the mode or the limits. Needs the right to update syncs.",
  );
export type ProposedSyncInput = z.infer<typeof proposedSyncSchema>;

export const planSyncSchema = z
  .strictObject({
    sample_size: z
      .number({ error: "must be a whole number from 0 to 20" })
      .int("must be a whole number from 0 to 20")
      .min(0, "must be a whole number from 0 to 20")
      .max(20, "must be a whole number from 0 to 20")
      .optional()
      .describe("Sample rows per action (insert, update, delete, skip); default 5."),
    sync: proposedSyncSchema.optional(),
  })
  .optional()
  .describe("Optional: leave the body out for 5 samples per action of the saved sync.");
export type PlanSyncInput = NonNullable<z.infer<typeof planSyncSchema>>;
