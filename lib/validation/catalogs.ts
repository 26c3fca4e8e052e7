// Request shapes of the catalog endpoints: `{connector_id, catalog: {json_schema}}` (one stream is
// built from it), or the full catalog with its streams and request settings.
import { z } from "zod";
import type { Catalog as CatalogJson } from "@/lib/connectors/types";
import { intId } from "./ids";
import { parseStored } from "./stored";
import { jsonObjectSchema } from "./connectors";
import { SYNC_MODES } from "./syncs";

export const RATE_LIMIT_UNITS = ["second", "minute", "hour", "day"] as const;
export const REQUEST_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const nonNegativeInt = (what: string) =>
  z.number({ error: "must be a whole number" }).int("must be a whole number").min(0, "must be 0 or more").describe(what);

export const SCHEMA_MODES = ["schema", "schemaless"] as const;
export const STREAM_ACTIONS = ["fetch", "create", "update", "delete"] as const;

export const rateLimitUnitSchema = z
  .enum(RATE_LIMIT_UNITS, { error: `must be one of: ${RATE_LIMIT_UNITS.join(", ")}` })
  .describe("The period request_rate_limit counts over.");

export const streamSchema = z.object({
  name: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(255).describe("Stream name; a sync's stream_name picks one."),
  url: z.string().max(2048).default("unknown").describe("Where records of this stream are sent or read (table, path or URL)."),
  json_schema: jsonObjectSchema.default({}).describe("JSON Schema of one record of the stream."),
  batch_support: z.boolean({ error: "must be true or false" }).default(false).describe("Whether records may be sent in batches."),
  batch_size: nonNegativeInt("Records per batch when batch_support is true.").default(0),
  request_method: z
    .enum(REQUEST_METHODS, { error: `must be one of: ${REQUEST_METHODS.join(", ")}` })
    .default("POST")
    .describe("HTTP method used for this stream."),
  request_rate_limit: nonNegativeInt("Per-stream limit; overrides the catalog's when non-zero.").optional(),
  request_rate_limit_unit: rateLimitUnitSchema.optional(),
  request_rate_concurrency: z.number().int("must be a whole number").min(1, "must be at least 1").optional().describe("Requests in flight."),
  primary_key: z.array(z.string()).optional().describe("Destination columns identifying a record, used for upserts."),
  action: z
    .enum(STREAM_ACTIONS, { error: `must be one of: ${STREAM_ACTIONS.join(", ")}` })
    .optional()
    .describe("What the stream is for: fetch (a table), create (an API records are posted to), update, delete."),
  // The reference protocol's stream members: what its console reads to offer sync modes.
  supported_sync_modes: z
    .array(z.enum(SYNC_MODES, { error: `must be one of: ${SYNC_MODES.join(", ")}` }), { error: "must be an array of sync modes" })
    .min(1, "must name at least one sync mode")
    .max(SYNC_MODES.length)
    .optional()
    .describe("Sync modes offered for this stream; default both."),
  source_defined_cursor: z.boolean({ error: "must be true or false" }).optional().describe("Whether the system picks the cursor; default false."),
  source_defined_primary_key: z
    .array(z.array(z.string().max(255)).max(16), { error: "must be an array of column paths" })
    .max(64)
    .optional()
    .describe("Primary key columns, each as a path, e.g. [[\"id\"]]; default: from primary_key."),
});

export const catalogBodySchema = z
  .object(
    {
      json_schema: jsonObjectSchema.optional().describe("Builds one stream named after the connector with this record schema."),
      streams: z.array(streamSchema, { error: "must be an array of streams" }).min(1, "must hold at least one stream").optional(),
      request_rate_limit: nonNegativeInt("Requests allowed per unit; 0 means no limit.").optional(),
      request_rate_limit_unit: rateLimitUnitSchema.optional(),
      request_rate_concurrency: z
        .number({ error: "must be a whole number" })
        .int("must be a whole number")
        .min(1, "must be at least 1")
        .optional()
        .describe("Requests in flight at once."),
      schema_mode: z
        .enum(SCHEMA_MODES, { error: `must be one of: ${SCHEMA_MODES.join(", ")}` })
        .optional()
        .describe("schema: records map onto the streams' json_schema fields; schemaless: any fields. Default: the stored catalog's, else schema."),
      source_defined_cursor: z.boolean({ error: "must be true or false" }).optional().describe("Whether the source picks the cursor; default false."),
    },
    { error: "is required: send {json_schema: {...}} or {streams: [...]}" },
  )
  .refine((c) => c.json_schema !== undefined || c.streams !== undefined, {
    message: "must hold json_schema (an object) or streams (an array)",
  })
  .refine((c) => !c.streams || new Set(c.streams.map((s) => s.name)).size === c.streams.length, {
    message: "stream names must be unique",
    path: ["streams"],
  });
export type CatalogBody = z.infer<typeof catalogBodySchema>;

export const createCatalogSchema = z.object({
  connector_id: intId("The connector this catalog describes."),
  catalog: catalogBodySchema,
});
export type CreateCatalogInput = z.infer<typeof createCatalogSchema>;

export const updateCatalogSchema = z.object({
  connector_id: createCatalogSchema.shape.connector_id.optional().describe("When sent, must be the catalog's connector."),
  catalog: catalogBodySchema,
});
export type UpdateCatalogInput = z.infer<typeof updateCatalogSchema>;

/**
 * A catalog as stored in catalogs.catalog (buildCatalog's shape). Streams use the request's stream
 * schema, except that the name is taken as stored (not trimmed, any length): it is the identity a
 * sync's stream_name refers to.
 */
export const storedCatalogSchema = z
  .object({
    streams: z.array(streamSchema.extend({ name: z.string().min(1) })),
    request_rate_limit: z.number(),
    request_rate_limit_unit: rateLimitUnitSchema,
    request_rate_concurrency: z.number(),
    schema_mode: z.enum(SCHEMA_MODES).optional(),
    source_defined_cursor: z.boolean().optional(),
  })
  .meta({ id: "CatalogJson", description: "A connector's catalog: its streams and request settings, as stored." });

/** A stored catalog column, checked with storedCatalogSchema instead of cast (`owner`, e.g. "connector 3", is named in the error). */
export const parseCatalogJson = (json: unknown, owner: string): CatalogJson => parseStored(storedCatalogSchema, json, `catalog of ${owner}`);

/**
 * A catalog as the API answers it: the stored schema, with members it does not name (a discovered
 * destination's supported_write_modes, the create answer's echoed json_schema) kept as they are.
 */
export const catalogAnswerSchema = storedCatalogSchema.loose();

/** A stored catalog for an answer, parsed with the schema the API documents (`owner` is named in the error). */
export const parseCatalogAnswer = (json: unknown, owner: string) => parseStored(catalogAnswerSchema, json, `catalog of ${owner}`);

