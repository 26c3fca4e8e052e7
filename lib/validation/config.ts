// The configuration file of a workspace (docs/config-as-code.md): connectors, models, syncs (with
// their run_after lists), alert channels and alert rules as lists of entries matched by slug. Each
// entry is the create body of its resource (the same field schemas, lib/validation/{connectors,
// models,syncs,alerts}.ts) with ids replaced by the slugs of the entries they point at. A new kind
// joins as a further top-level list: add the list here, its handler to
// lib/services/config-as-code/kinds.ts, and its order to CONFIG_KINDS.
import { z } from "zod";
import { createAlertChannelSchema, createAlertRuleSchema, requireThreshold, requireTypeFields } from "./alerts";
import { catalogBodySchema } from "./catalogs";
import { createConnectorSchema } from "./connectors";
import { createModelSchema } from "./models";
import { MAX_RUN_AFTER } from "./sequences";
import { refineSchedule, syncFields } from "./syncs";

/** The version this server writes and reads; a file of another version is refused. */
export const CONFIG_VERSION = 1;

/**
 * The kinds in the order apply creates them (a kind points only at kinds before it); deletes go in
 * the reverse order. The extension point: a new kind is one more name here and one more list below.
 */
export const CONFIG_KINDS = ["connectors", "models", "syncs", "alert_channels", "alert_rules"] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** Lower-case letters, digits and single dashes inside; at most 63 characters (lib/config-as-code/slugs.ts derives them). */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const slugSchema = z
  .string({ error: "is required (a slug: lower-case letters, digits and dashes)" })
  .regex(SLUG_PATTERN, "must be lower-case letters, digits and dashes (not at either end), at most 63 characters")
  .describe("The entry's identity in the file: it matches the workspace's object whose name derives to it.");

const refSchema = (what: string) => slugSchema.describe(`The slug of the ${what} entry.`);

const { connector_id: _connectorId, ...modelFields } = createModelSchema.shape.model.shape;
const { source_id: _sourceId, destination_id: _destinationId, model_id: _modelId, ...syncFieldsWithoutIds } = syncFields;
const { sync_id: _syncId, channel_ids: _channelIds, ...ruleFieldsWithoutIds } = createAlertRuleSchema.shape.alert_rule.shape;

export const configConnectorSchema = createConnectorSchema.shape.connector
  .extend({
    slug: slugSchema,
    catalog: catalogBodySchema
      .optional()
      .describe("A destination's streams (what a sync's stream_name picks); left out: the stored catalog stays as it is."),
  })
  .describe("A connector: its create body, with secret fields written as ${env:NAME} references.");
export type ConfigConnector = z.infer<typeof configConnectorSchema>;

export const configModelSchema = z
  .object({ slug: slugSchema, ...modelFields, connector: refSchema("source connector") })
  .describe("A model: its create body, with the source connector by slug.");
export type ConfigModel = z.infer<typeof configModelSchema>;

export const configSyncSchema = z
  .object({
    slug: slugSchema,
    ...syncFieldsWithoutIds,
    source: refSchema("source connector"),
    destination: refSchema("destination connector"),
    model: refSchema("model"),
    run_after: z
      .array(refSchema("sync"), { error: "must be a list of sync slugs" })
      .max(MAX_RUN_AFTER, { error: `may list at most ${MAX_RUN_AFTER} syncs` })
      .optional()
      .describe("The syncs (by slug) that must succeed before this one runs (docs/orchestration.md); replaces the list. Left out: unchanged."),
  })
  .superRefine(refineSchedule)
  .describe("A sync: its create body, with source, destination, model and run_after by slug.");
export type ConfigSync = z.infer<typeof configSyncSchema>;

export const configAlertChannelSchema = z
  .object({ slug: slugSchema, ...createAlertChannelSchema.shape.alert_channel.shape })
  .superRefine((v, ctx) => requireTypeFields(v, ctx, []))
  .describe("An alert channel: its create body; a Slack url (a secret) written as a ${env:NAME} reference.");
export type ConfigAlertChannel = z.infer<typeof configAlertChannelSchema>;

export const configAlertRuleSchema = z
  .object({
    slug: slugSchema,
    ...ruleFieldsWithoutIds,
    sync: refSchema("sync").nullish().describe("The slug of the sync watched; null: every sync of the workspace."),
    channels: z
      .array(refSchema("alert channel"), { error: "must be a list of alert channel slugs" })
      .min(1, "must name at least one channel")
      .max(20, "must be at most 20 channels")
      .describe("The alert channels (by slug) that get the firing and resolved messages."),
  })
  .superRefine((v, ctx) => requireThreshold(v, ctx, []))
  .describe("An alert rule: its create body, with the sync and channels by slug.");
export type ConfigAlertRule = z.infer<typeof configAlertRuleSchema>;

const MAX_ENTRIES = 1000;

/** A list of entries whose slugs are unique. */
function listOf<S extends z.ZodType<{ slug: string }>>(entry: S, kind: string) {
  return z
    .array(entry, { error: `must be a list of ${kind} entries` })
    .max(MAX_ENTRIES, `must hold at most ${MAX_ENTRIES} entries`)
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((e, i) => {
        if (seen.has(e.slug)) ctx.addIssue({ code: "custom", path: [i, "slug"], message: `"${e.slug}" is used by another ${kind} entry; slugs are unique per kind` });
        seen.add(e.slug);
      });
    })
    .optional()
    .describe(`The workspace's ${kind}s; left out: none are touched.`);
}

/** Values of `${env:NAME}` references, by NAME, as the client resolved them (the server never reads its own environment for them). */
export const configSecretsSchema = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "must be an environment variable name"),
    z.string({ error: "must be a string" }).max(64 * 1024),
  )
  .optional()
  .describe("Values for ${env:NAME} references, sent by the client; never stored in the file, never echoed.");

/** The document plan and apply take (YAML or JSON), and export writes (without `secrets`). */
export const configDocumentSchema = z
  .strictObject(
    {
      version: z.literal(CONFIG_VERSION, { error: `must be ${CONFIG_VERSION}` }).describe("The format version."),
      prune: z
        .boolean({ error: "must be true or false" })
        .optional()
        .describe("true: objects of a listed kind that have no entry are deleted. Default false: nothing is deleted."),
      connectors: listOf(configConnectorSchema, "connector"),
      models: listOf(configModelSchema, "model"),
      syncs: listOf(configSyncSchema, "sync"),
      alert_channels: listOf(configAlertChannelSchema, "alert channel"),
      alert_rules: listOf(configAlertRuleSchema, "alert rule"),
      secrets: configSecretsSchema,
    },
    {
      error: (issue) =>
        issue.code === "invalid_type"
          ? "must be a configuration document {version: 1, connectors, models, syncs, alert_channels, alert_rules} (YAML or JSON)"
          : issue.code === "unrecognized_keys"
            ? `this server knows the top-level keys version, prune, ${CONFIG_KINDS.join(", ")} and secrets`
            : undefined,
    },
  )
  .describe("A workspace's configuration (docs/config-as-code.md).");
export type ConfigDocument = z.infer<typeof configDocumentSchema>;
export type ConfigDocumentInput = z.input<typeof configDocumentSchema>;

/** What plan and apply answer. */
export const configChangeSchema = z.strictObject({
  kind: z.enum(CONFIG_KINDS),
  slug: z.string(),
  action: z.enum(["create", "update", "delete"]),
  id: z.number().int().nullable().describe("The object's id: null for a create in a plan; the new id after apply."),
  fields: z
    .array(
      z.strictObject({
        field: z.string().describe("Dotted path, e.g. configuration.host."),
        before: z.unknown().optional().describe("Only for plain values that are not secrets."),
        after: z.unknown().optional().describe("Only for plain values that are not secrets."),
        secret: z.boolean().optional().describe("true: a secret changed; its values are never shown."),
      }),
    )
    .describe("The fields a create sets or an update changes; empty for a delete."),
});
export type ConfigChange = z.infer<typeof configChangeSchema>;

export const configPlanSchema = z.strictObject({
  applied: z.boolean().describe("false for a plan; true when apply wrote the changes."),
  changes: z.array(configChangeSchema),
  summary: z.strictObject({ create: z.number().int(), update: z.number().int(), delete: z.number().int(), unchanged: z.number().int() }),
});
export type ConfigPlan = z.infer<typeof configPlanSchema>;

/** GET /config/export: which kinds to write; default all. */
export const exportConfigQuerySchema = z.object({
  kinds: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return [...CONFIG_KINDS];
      const kinds = [...new Set(v.split(",").map((k) => k.trim()).filter(Boolean))];
      const unknown = kinds.filter((k) => !(CONFIG_KINDS as readonly string[]).includes(k));
      if (unknown.length > 0 || kinds.length === 0) {
        ctx.addIssue({ code: "custom", message: `must list some of: ${CONFIG_KINDS.join(", ")}` });
        return z.NEVER;
      }
      return CONFIG_KINDS.filter((k) => kinds.includes(k));
    })
    .describe(`Comma-separated kinds to export (${CONFIG_KINDS.join(", ")}); default all. Each needs read permission.`),
});
