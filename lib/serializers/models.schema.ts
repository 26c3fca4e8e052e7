// The model resource, as serializeModel (./models.ts) builds it.
import { z } from "zod";
import { QueryType } from "@/lib/generated/prisma/enums";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { dateTime, resourceSchema } from "./resource";

export const modelAttributesSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  query: z.string(),
  query_type: z.enum(QueryType),
  configuration: jsonObjectSchema.describe("The model's settings."),
  primary_key: z.string().nullable().describe("The column identifying a row across runs; null until set (a sync needs it)."),
  connector_id: z.number().int(),
  workspace_id: z.number().int(),
  connector: z.strictObject({
    id: z.number().int(),
    name: z.string(),
    connector_name: z.string(),
    icon: z.string().describe("Absolute URL; empty when unknown."),
  }),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type ModelAttributes = z.infer<typeof modelAttributesSchema>;

export const modelSchema = resourceSchema("models", modelAttributesSchema).meta({ id: "Model" });
export type ModelResource = z.infer<typeof modelSchema>;
