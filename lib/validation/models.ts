// Request shapes of the model endpoints. A model is a query on a source connector.
import { z } from "zod";
import { sortSchema } from "./sort";
import { jsonObjectSchema } from "./connectors";
import { intId, queryIntId } from "./ids";
import { QueryType } from "@/lib/generated/prisma/enums";

export const QUERY_TYPES: readonly QueryType[] = Object.values(QueryType);
/** Query types of the reference we do not run yet: refused with a sentence that says so. */
const UNSUPPORTED_QUERY_TYPES = ["dbt", "soql", "unstructured", "vector_search", "dynamic_sql", "semistructured"];
/** Every query type the reference knows: a list filter may name any of them. */
const KNOWN_QUERY_TYPES: readonly string[] = [...QUERY_TYPES, ...UNSUPPORTED_QUERY_TYPES];
const isSupported = (t: string): t is QueryType => (QUERY_TYPES as readonly string[]).includes(t);

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
  // Optional, as in the reference ("" and null mean none, as its console sends them); a sync needs it.
  primary_key: z
    .string()
    .trim()
    .max(255)
    .nullish()
    .transform((v) => (v === undefined ? undefined : v || null))
    .describe("The column whose value identifies a row across runs; a sync on the model needs it."),
  connector_id: intId("The source connector the query runs on."),
};

export const createModelSchema = z.object({
  model: z.object(modelFields, { error: "is required: send {model: {name, query, query_type, connector_id, primary_key?}}" }),
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
      primary_key: modelFields.primary_key,
      connector_id: modelFields.connector_id.optional(),
    },
    { error: "is required: send {model: {...fields to change}}" },
  ),
});
export type UpdateModelInput = z.infer<typeof updateModelSchema>["model"];

const MAX_FILTER_QUERY_TYPES = 20;

/**
 * `?query_type=raw_sql`, a comma-separated list (`raw_sql,dbt,soql,table_selector`, what the
 * reference console sends) or the repeated form (`query_type=a&query_type=b`, `query_type[]=a`).
 * Each member must be a query type the reference knows; the ones we do not run match no model, so
 * the filter comes out as the supported types it names (possibly none).
 */
function queryTypeFilterSchema() {
  return z
    .union([z.string(), z.array(z.string())], { error: "must be a query type or a comma-separated list of them" })
    .transform((v, ctx) => {
      const members = (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(","))
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = members.filter((m) => !KNOWN_QUERY_TYPES.includes(m));
      if (unknown.length > 0 || members.length === 0 || members.length > MAX_FILTER_QUERY_TYPES) {
        const shown = unknown.length
          ? `"${unknown[0].slice(0, 40)}" is not a query type; `
          : members.length === 0
            ? "names no query type; "
            : `has more than ${MAX_FILTER_QUERY_TYPES} members; `;
        ctx.addIssue({ code: "custom", message: `${shown}list some of: ${KNOWN_QUERY_TYPES.join(", ")}` });
        return z.NEVER;
      }
      return [...new Set(members.filter(isSupported))];
    })
    .describe(
      `Only models of these query types: one, a comma-separated list (raw_sql,dbt,soql,table_selector) or the parameter repeated. Known: ${KNOWN_QUERY_TYPES.join(", ")}; the ones not supported here match no model.`,
    );
}

export const listModelsQuerySchema = z.object({
  connector_id: queryIntId()
    .optional()
    .describe("Only models of this source connector."),
  query_type: queryTypeFilterSchema().optional(),
  sort: sortSchema({ name: "name", query_type: "queryType", created_at: "createdAt", updated_at: "updatedAt" }),
});
export type ListModelsQuery = z.infer<typeof listModelsQuerySchema>;
