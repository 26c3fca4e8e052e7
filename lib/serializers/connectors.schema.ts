// The connector resource, as serializeConnector (./connectors.ts) builds it.
import { z } from "zod";
import { ConnectorCategory, ConnectorType } from "@/lib/generated/prisma/enums";
import { dateTime, resourceSchema } from "./resource";

export const connectorAttributesSchema = z.strictObject({
  name: z.string(),
  connector_type: z.enum(ConnectorType),
  connector_name: z.string().describe("The connector definition's name, e.g. Postgresql."),
  category: z.enum(ConnectorCategory),
  description: z.string(),
  workspace_id: z.number().int(),
  configuration: z.record(z.string(), z.unknown()).describe("The settings, with every secret masked."),
  icon: z.string().describe("Absolute URL of the definition's icon; empty when unknown."),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type ConnectorAttributes = z.infer<typeof connectorAttributesSchema>;

export const connectorSchema = resourceSchema("connectors", connectorAttributesSchema).meta({ id: "Connector" });
export type ConnectorResource = z.infer<typeof connectorSchema>;
