// Request shapes of the connector endpoints. The console forms and the OpenAPI document import
// these same schemas, so every field carries a description.
import { z } from "zod";
import { caseInsensitiveEnum } from "./case-insensitive";
import { sortSchema } from "./sort";
import { ConnectorCategory, ConnectorType } from "@/lib/generated/prisma/enums";
import { CONNECTOR_CATEGORY_NAMES, type ConnectorCategoryName } from "@/lib/connectors/categories";

export const CONNECTOR_TYPES: readonly ConnectorType[] = Object.values(ConnectorType);
export const CONNECTOR_CATEGORIES: readonly ConnectorCategory[] = Object.values(ConnectorCategory);

export const connectorTypeSchema = z
  .enum(CONNECTOR_TYPES, { error: `must be one of: ${CONNECTOR_TYPES.join(", ")}` })
  .describe("Whether the connector reads data (source) or receives it (destination).");

export const connectorCategorySchema = z
  .enum(CONNECTOR_CATEGORIES, { error: `must be one of: ${CONNECTOR_CATEGORIES.join(", ")}` })
  .describe("data: databases and APIs; ai_ml: model endpoints.");

/** The list filters: `source`, `Source` and `SOURCE` are one value (the reference console sends `Source`). */
export const connectorTypeFilterSchema = caseInsensitiveEnum(CONNECTOR_TYPES).describe(
  "source or destination, in any case (the reference console sends Source).",
);
/**
 * The category filters, as the reference's: a group (`data`, `ai_ml`) or one category's name
 * (`Data Warehouse`), in any case; comes out as the group in lower case or the category as spelled.
 */
export const connectorCategoryFilterSchema = z
  .string()
  .transform((v, ctx): ConnectorCategory | ConnectorCategoryName => {
    const wanted = v.trim().toLowerCase();
    const group = CONNECTOR_CATEGORIES.find((g) => g === wanted);
    const category = CONNECTOR_CATEGORY_NAMES.find((c) => c.toLowerCase() === wanted);
    if (group ?? category) return (group ?? category)!;
    ctx.addIssue({ code: "custom", message: `must be data, ai_ml or a category: ${CONNECTOR_CATEGORY_NAMES.join(", ")} (any case)` });
    return z.NEVER;
  })
  .describe(`A group, data (databases, warehouses, files and APIs) or ai_ml (model endpoints), or one category exactly: ${CONNECTOR_CATEGORY_NAMES.join(", ")}. Any case.`);

/** A JSON object (not an array, not null): configurations and JSON Schemas. */
export const jsonObjectSchema = z.record(z.string(), z.unknown(), { error: "must be a JSON object" });

/** Stored configurations stay small: hosts, names and keys, never megabytes (the body limit is 1 MB). */
export const MAX_CONFIGURATION_CHARS = 64 * 1024;
const boundedConfiguration = jsonObjectSchema.refine((c) => JSON.stringify(c).length <= MAX_CONFIGURATION_CHARS, {
  message: `must be at most ${MAX_CONFIGURATION_CHARS} characters as JSON`,
});

export const listConnectorsQuerySchema = z.object({
  type: connectorTypeFilterSchema.optional(),
  category: connectorCategoryFilterSchema.optional(),
  search: z.string().trim().max(200, "must be at most 200 characters").optional().describe("Case-insensitive part of the connector's name."),
  sort: sortSchema({ name: "name", connector_name: "connectorName", created_at: "createdAt", updated_at: "updatedAt" }),
});
export type ListConnectorsQuery = z.infer<typeof listConnectorsQuerySchema>;

const connectorFields = {
  name: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(255, "must be at most 255 characters").describe("A name unique among the workspace's connectors of the same type."),
  connector_type: connectorTypeSchema,
  connector_name: z
    .string({ error: "is required" })
    .trim()
    .min(1, "must not be empty")
    .max(100)
    .describe("The connector definition's name, e.g. Postgresql (see GET /api/v1/connector_definitions)."),
  configuration: boundedConfiguration.describe(
    "Settings validated against the definition's connection_specification; secret fields come back masked.",
  ),
  description: z.string().max(2000, "must be at most 2000 characters").nullish().describe("Free text shown in the console."),
};

export const createConnectorSchema = z.object({
  connector: z.object(connectorFields, { error: "is required: send {connector: {name, connector_type, connector_name, configuration}}" }),
});
export type CreateConnectorInput = z.infer<typeof createConnectorSchema>["connector"];

export const updateConnectorSchema = z.object({
  connector: z
    .object({
      name: connectorFields.name.optional(),
      connector_type: connectorFields.connector_type.optional(),
      connector_name: connectorFields.connector_name.optional(),
      configuration: connectorFields.configuration
        .optional()
        .describe("The full configuration; a secret sent back as ************* keeps the stored value."),
      description: connectorFields.description,
    }, { error: "is required: send {connector: {...fields to change}}" }),
});
export type UpdateConnectorInput = z.infer<typeof updateConnectorSchema>["connector"];

export const discoverConnectorQuerySchema = z.object({
  refresh: z
    .enum(["true", "false", "1", "0"], { error: "must be true or false" })
    .optional()
    .transform((v) => v === "true" || v === "1")
    .describe("true: discover the streams again instead of returning the stored catalog."),
});

export const QUERY_PREVIEW_DEFAULT_LIMIT = 50;
export const QUERY_PREVIEW_MAX_LIMIT = 1000;

export const querySourceSchema = z.object({
  query: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(100_000).describe("A read-only SQL query to preview; it must not end with LIMIT or OFFSET."),
  limit: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(QUERY_PREVIEW_MAX_LIMIT, `must be at most ${QUERY_PREVIEW_MAX_LIMIT}`)
    .optional()
    .describe(`Rows to return; default ${QUERY_PREVIEW_DEFAULT_LIMIT}.`),
});
export type QuerySourceInput = z.infer<typeof querySourceSchema>;

// Strict: a misspelt key (e.g. the update's {connector: {configuration}}) must not quietly test the saved settings.
export const checkConnectorSchema = z
  .strictObject({
    configuration: connectorFields.configuration
      .optional()
      .describe(
        "Settings to try instead of the saved ones, taken as an update takes them: the whole configuration, where a secret sent back as ************* keeps the stored value. Sending it needs connector.update (403 otherwise); leave it out to try the saved configuration.",
      ),
  })
  .optional()
  .describe("Optional: leave the body out (or send {}) to try the saved configuration.");
export type CheckConnectorInput = NonNullable<z.infer<typeof checkConnectorSchema>>;
