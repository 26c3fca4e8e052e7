// A connector definition, as serializeConnectorDefinition (./connector-definitions.ts) builds it.
import { z } from "zod";
import { WriteMode } from "@/lib/generated/prisma/enums";
import { CONNECTOR_CATEGORY_NAMES } from "@/lib/connectors/categories";

export const connectorDefinitionSchema = z
  .strictObject({
    name: z.string(),
    title: z.string(),
    connector_type: z.enum(["source", "destination"]),
    category: z.enum(CONNECTOR_CATEGORY_NAMES).describe("The reference's category (Data Warehouse, CRM, AI Model…); the list filter's data and ai_ml group them."),
    sub_category: z.string().nullable(),
    icon: z.string().describe("Absolute URL."),
    documentation_url: z.string(),
    supported_write_modes: z
      .array(z.enum(WriteMode))
      .describe("Destinations: the write modes a sync may use with it (docs/write-modes.md); empty for sources."),
    connector_spec: z.strictObject({
      documentation_url: z.string(),
      connection_specification: z
        .record(z.string(), z.unknown())
        .describe("JSON Schema (draft-07) of the configuration; secrets carry secret and multiwoven_secret."),
      stream_type: z.enum(["dynamic", "user_defined"]),
      supports_query: z.boolean(),
      secret_target_fields: z.array(z.string()).readonly().describe("Fields whose change needs the secrets entered again."),
    }),
  })
  .meta({ id: "ConnectorDefinition" });
export type ConnectorDefinitionBody = z.infer<typeof connectorDefinitionSchema>;
