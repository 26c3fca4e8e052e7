// Request shapes of the model endpoints. A model is a query on a source connector.
import { z } from "zod";
import { sortSchema } from "./sort";
import { jsonObjectSchema } from "./connectors";
import { intId, queryIntId } from "./ids";

export const QUERY_TYPES = ["raw_sql", "table_selector", "ai_ml"] as const;
/** Query types of the reference we do not run yet: refused with a sentence that says so. */
const UNSUPPORTED_QUERY_TYPES = ["dbt", "soql", "unstructured", "vector_search", "dynamic_sql"];

export const queryTypeSchema = z
  .enum(QUERY_TYPES, {
    error: (issue) =>
      typeof issue.input === "string" && UNSUPPORTED_QUERY_TYPES.includes(issue.input)
        ? `${issue.input} models are not supported yet; use one of: ${QUERY_TYPES.join(", ")}`
        : `must be one of: ${QUERY_TYPES.join(", ")}`,
  })
  .describe("raw_sql: a SQL query; table_selector: a query built from a table; ai_ml: inputs for a model endpoint.");

const modelFields = {
  name: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(255, "must be at most 255 characters").describe("Shown in the console."),
  description: z.string().max(2000, "must be at most 2000 characters").nullish().describe("Free text."),
  query: z
    .string({ error: "is required" })
    .trim()
    .min(1, "must not be empty")
    .max(100_000, "must be at most 100000 characters")
    .describe("The query that reads the rows; it must not end with LIMIT or OFFSET (the service pages itself)."),
  query_type: queryTypeSchema,
  configuration: jsonObjectSchema.nullish().describe("Extra settings of the query type (e.g. the table for table_selector)."),
  primary_key: z
    .string({ error: "is required (the column that identifies a row)" })
    .trim()
    .min(1, "must not be empty")
    .max(255)
    .describe("The column whose value identifies a row across runs."),
  connector_id: intId("The source connector the query runs on."),
};

export const createModelSchema = z.object({
  model: z.object(modelFields, { error: "is required: send {model: {name, query, query_type, primary_key, connector_id}}" }),
});
export type CreateModelInput = z.infer<typeof createModelSchema>["model"];

export const updateModelSchema = z.object({
  model: z.object(
    {
      name: modelFields.name.optional(),
      description: modelFields.description,
      query: modelFields.query.optional(),
      query_type: modelFields.query_type.optional(),
      configuration: modelFields.configuration,
      primary_key: modelFields.primary_key.optional(),
      connector_id: modelFields.connector_id.optional(),
    },
    { error: "is required: send {model: {...fields to change}}" },
  ),
});
export type UpdateModelInput = z.infer<typeof updateModelSchema>["model"];

export const listModelsQuerySchema = z.object({
  connector_id: queryIntId()
    .optional()
    .describe("Only models of this source connector."),
  query_type: queryTypeSchema.optional(),
  sort: sortSchema({ name: "name", query_type: "queryType", created_at: "createdAt", updated_at: "updatedAt" }),
});
export type ListModelsQuery = z.infer<typeof listModelsQuerySchema>;
