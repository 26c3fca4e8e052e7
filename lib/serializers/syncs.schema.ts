// The sync resource, as serializeSync (./syncs.ts) builds it, and the envelopes its endpoints use.
import { z } from "zod";
import {
  ConnectorType,
  QueryType,
  ScheduleType,
  SyncIntervalUnit,
  SyncMode,
  SyncRunStatus,
  SyncRunType,
  SyncStatus,
  WriteMode,
} from "@/lib/generated/prisma/enums";
import { RUN_OUTCOMES } from "@/lib/sync-rules/run-outcome";
import { effectiveGuardSchema } from "./plans.schema";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { syncConfigurationSchema } from "@/lib/validation/syncs";
import { dateTime, resourceSchema } from "./resource";

/** A connector in a sync, without its configuration. */
export const syncConnectorSchema = z
  .strictObject({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    connector_type: z.enum(ConnectorType),
    workspace_id: z.number().int(),
    connector_name: z.string(),
    icon: z.string().describe("Absolute URL of the connector's icon; empty when unknown."),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: "SyncConnector" });
export type SyncConnector = z.infer<typeof syncConnectorSchema>;

export const syncModelSchema = z
  .strictObject({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    query: z.string(),
    query_type: z.enum(QueryType),
    configuration: jsonObjectSchema.describe("The model's settings."),
    primary_key: z.string().nullable(),
    connector_id: z.number().int(),
    connector: syncConnectorSchema,
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: "SyncModel" });
export type SyncModel = z.infer<typeof syncModelSchema>;

/** A run's derived outcome (as on the sync run resource) and what its words need. */
const runOutcomeFields = {
  outcome: z.enum(RUN_OUTCOMES).describe("Derived, beside status: as the sync run resource's outcome."),
  failed_rows: z.number().int().describe("Rows the run could not deliver (rejected by the destination or not mappable)."),
  canceled_by: z.string().nullable().describe("Who canceled the run; null when nobody did, and for callers who may read neither the members nor the audit log."),
  successful_rows: z.number().int().describe("Rows the destination accepted (for a canceled run: whether it wrote anything before the cancel)."),
  approved: z.boolean().describe("Someone approved the run after its sync's limits held it."),
  approved_by: z.string().nullable().describe("Who approved it; null when nobody did, and for callers who may read neither the members nor the audit log."),
  held: z.boolean().describe("Its plan broke its sync's limits, so it was held for approval."),
};

export const syncAttributesSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  source_id: z.number().int(),
  destination_id: z.number().int(),
  model_id: z.number().int(),
  configuration: syncConfigurationSchema.describe(
    "Field mappings: [{from, to, mapping_type, null_policy?}] (or the older {source_column: destination_field}); null_policy skip leaves an empty value out of the payload.",
  ),
  schedule_type: z.enum(ScheduleType),
  sync_mode: z.enum(SyncMode),
  sync_interval: z.number().int().nullable(),
  sync_interval_unit: z.enum(SyncIntervalUnit).nullable(),
  cron_expression: z.string().nullable(),
  timezone: z.string(),
  cursor_field: z.string().nullable(),
  current_cursor_field: z.string().nullable().describe("Incremental: the saved position."),
  stream_name: z.string(),
  status: z.enum(SyncStatus),
  detect_deletes: z.boolean(),
  live: z.boolean().describe("Streams the source's changes as they commit (docs/live-syncs.md); our extension."),
  guard: z
    .strictObject({
      max_delete_percent: z.number().nullable().optional(),
      max_change_percent: z.number().nullable().optional(),
      max_change_rows: z.number().nullable().optional(),
      refuse_empty_extract: z.boolean().nullable().optional(),
    })
    .nullable()
    .describe("The blast-radius limits as set (a limit left out takes its default, null turns it off); null: all defaults. effective_guard has what applies."),
  effective_guard: effectiveGuardSchema.describe("The limits a general run checks before its first write, defaults applied."),
  write_mode: z
    .enum(WriteMode)
    .describe("upsert, update (existing keys only), insert (new keys only) or mirror (upsert and delete rows that left the model); see docs/write-modes.md."),
  next_run_at: dateTime().nullable(),
  source: syncConnectorSchema,
  destination: syncConnectorSchema,
  model: syncModelSchema,
  last_run: z
    .strictObject({
      id: z.number().int(),
      status: z.enum(SyncRunStatus),
      sync_run_type: z.enum(SyncRunType),
      started_at: dateTime().nullable(),
      finished_at: dateTime().nullable(),
      ...runOutcomeFields,
    })
    .nullable(),
  last_outcome: z
    .strictObject({
      sync_run_id: z.number().int(),
      status: z.enum(SyncRunStatus),
      sync_run_type: z.enum(SyncRunType).describe("Always general: test runs are not a sync's outcome."),
      finished_at: dateTime().nullable(),
      ...runOutcomeFields,
    })
    .nullable()
    .describe(
      "The latest general run that ended, beside status: its derived outcome (a success with rejected rows, a cancel and by whom) stays visible while a new run runs. Null before any ended.",
    ),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type SyncAttributes = z.infer<typeof syncAttributesSchema>;

export const syncSchema = resourceSchema("syncs", syncAttributesSchema).meta({ id: "Sync" });
export type SyncResource = z.infer<typeof syncSchema>;

/**
 * GET /syncs/{id} and POST /syncs: the resource at the top level (the API contract) and the same
 * resource again under `data` (where the reference server puts it).
 */
export const syncDocumentSchema = syncSchema.extend({ data: syncSchema });
export type SyncDocument = z.infer<typeof syncDocumentSchema>;

/** PUT /syncs/{id}. */
export const syncUpdatedSchema = z.strictObject({ success: z.literal(true), message: z.string(), data: syncSchema });

/** GET /syncs/configurations: the mapping types a sync configuration may use (a fixed payload). */
export const syncConfigurationsSchema = z.strictObject({
  data: z.strictObject({
    configurations: z.strictObject({
      catalog_mapping_types: z
        .record(z.string(), z.unknown())
        .describe("standard, static (string, number, boolean, null) and template (variables and filters), each with a description."),
    }),
  }),
});
