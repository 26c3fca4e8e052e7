// The wizard's form: the create body of POST /api/v1/syncs (createSyncSchema), except that the ids
// start empty (null) until the person chooses, and mappings are always the list form.
import { z } from "zod";
import type { Sync } from "@/lib/api-client/types";
import { normalizeConfiguration } from "@/lib/sync-rules/mapping";
import {
  fieldMappingSchema,
  scheduleUses,
  SYNC_INTERVAL_UNITS,
  syncFields,
  type CreateSyncInput,
  type UpdateSyncInput,
} from "@/lib/validation/syncs";
import { chosenId } from "@/lib/validation/ids";
import { scheduleFieldProblem, type ScheduleField } from "./schedule-problems";

/**
 * The schedule values as typed, unchecked: an empty "Every" box is NaN, a value the chosen schedule
 * type hides must not block the form (issue: an invalid interval, then cron, left a hidden error
 * that blocked Continue). `refineUsedSchedule` checks the fields the type runs on, and nothing else;
 * the API checks them again on save.
 */
const looseScheduleFields = {
  sync_interval: z.number().nullish().catch(null),
  sync_interval_unit: z.enum(SYNC_INTERVAL_UNITS).nullish().catch(null),
  cron_expression: z.string().nullish().catch(null),
  timezone: z.string().nullish().catch(null),
};

/** Which schedule fields the chosen type runs on (the time zone goes with the cron expression). */
export function usedScheduleFields(s: Pick<CreateSyncInput, "schedule_type" | "cron_expression">): Set<ScheduleField> {
  const { useCron, useInterval } = scheduleUses(s);
  return new Set([...(useInterval ? (["sync_interval", "sync_interval_unit"] as const) : []), ...(useCron ? (["cron_expression", "timezone"] as const) : [])]);
}

/** Checks the schedule fields the chosen type runs on, in the form's words (schedule-problems.ts). */
function refineUsedSchedule(sync: Pick<CreateSyncInput, "schedule_type" | ScheduleField>, ctx: z.RefinementCtx): void {
  for (const field of usedScheduleFields(sync)) {
    const message = scheduleFieldProblem(field, sync);
    if (message) ctx.addIssue({ code: "custom", path: [field], message });
  }
}

export const syncFormSchema = z.object({
  sync: z
    .object({
      ...syncFields,
      ...looseScheduleFields,
      model_id: chosenId(syncFields.model_id, "Choose a model"),
      source_id: chosenId(syncFields.source_id, "Choose a model"),
      destination_id: chosenId(syncFields.destination_id, "Choose a destination"),
      configuration: z.array(fieldMappingSchema.required({ mapping_type: true })),
    })
    .superRefine(refineUsedSchedule),
});

/** What the fields hold while the person edits. */
export type SyncFormInput = z.input<typeof syncFormSchema>;
/** What a valid form submits. */
export type SyncFormValues = z.output<typeof syncFormSchema>;
export type SyncFormField = keyof SyncFormInput["sync"];

/** The form's start: the sync being edited, or a new sync (of the model in `?model=`, if any). */
export function initialValues(sync: Sync | undefined, modelParam: string | null): SyncFormInput {
  const a = sync?.attributes;
  return {
    sync: {
      model_id: a?.model_id ?? (Number(modelParam) || null),
      source_id: a?.source_id ?? null,
      destination_id: a?.destination_id ?? null,
      stream_name: a?.stream_name ?? "",
      configuration: a ? normalizeConfiguration(a.configuration) : [],
      sync_mode: a?.sync_mode ?? "incremental",
      cursor_field: a?.cursor_field ?? "",
      detect_deletes: a?.detect_deletes ?? false,
      live: a?.live ?? false,
      // An existing sync edits the limits in force (defaults written out); a new one takes the defaults.
      guard: a ? { ...a.effective_guard } : undefined,
      write_mode: a?.write_mode ?? "upsert",
      schedule_type: a?.schedule_type ?? "manual",
      sync_interval: a?.sync_interval ?? 1,
      sync_interval_unit: a?.sync_interval_unit ?? "hours",
      cron_expression: a?.cron_expression ?? "0 * * * *",
      timezone: a?.timezone ?? "UTC",
      name: a?.name ?? "",
      description: a?.description ?? "",
    },
  };
}

/**
 * The create body: a cursor only for incremental syncs, no name rather than an empty one, and only
 * the schedule values the schedule type runs on (the form keeps every field while the person
 * switches types; the API refuses a value its schedule would not use).
 */
export function createBody(values: SyncFormValues): CreateSyncInput {
  const { cursor_field, ...rest } = values.sync;
  const { useCron, useInterval } = scheduleUses(rest);
  return {
    ...rest,
    sync_interval: useInterval ? rest.sync_interval : null,
    sync_interval_unit: useInterval ? rest.sync_interval_unit : null,
    cron_expression: useCron ? rest.cron_expression : null,
    cursor_field: rest.sync_mode === "incremental" && cursor_field ? cursor_field : null,
    // Live is offered only for incremental syncs (its box is hidden otherwise).
    live: rest.sync_mode === "incremental" ? rest.live : false,
    name: rest.name || null,
  };
}

/** The update body: the create body without the cursor, which cannot change after create. */
export function updateBody(values: SyncFormValues): UpdateSyncInput {
  const { cursor_field: _cursor, ...rest } = createBody(values);
  return rest;
}
