// Request shapes of the connector definition endpoints.
import { z } from "zod";
import { connectorCategoryFilterSchema, connectorTypeFilterSchema, jsonObjectSchema } from "./connectors";

export const listConnectorDefinitionsQuerySchema = z.object({
  type: connectorTypeFilterSchema.optional(),
  category: connectorCategoryFilterSchema.optional(),
});
export type ListConnectorDefinitionsQuery = z.infer<typeof listConnectorDefinitionsQuerySchema>;

export const connectorDefinitionParamsSchema = z.object({
  name: z.string().min(1).max(100, "must be at most 100 characters").describe("Definition name, case-insensitive (e.g. postgresql)."),
});

export const showConnectorDefinitionQuerySchema = z.object({
  type: connectorTypeFilterSchema.optional().describe("source or destination (any case), for names that exist as both; default source."),
});

export const checkConnectionSchema = z.object({
  name: z.string({ error: "is required" }).trim().min(1, "must not be empty").max(100).describe("The connector definition's name, e.g. Postgresql."),
  // Any case, as the reference (which camelizes it) takes it.
  type: connectorTypeFilterSchema.optional().describe("source or destination (any case); default: the source when both exist."),
  connection_spec: jsonObjectSchema.describe("The configuration to try, shaped by the definition's connection_specification."),
});
export type CheckConnectionInput = z.infer<typeof checkConnectionSchema>;
