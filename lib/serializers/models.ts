// Model resources, with a summary of the source connector they read from.
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { parseStored } from "@/lib/validation/stored";
import { iso, resource } from "./resource";
import { connectorIcon, connectorName } from "./connectors";
import type { ModelWithConnector } from "@/lib/services/catalogue/models";
import type { ModelAttributes, ModelResource } from "./models.schema";

export const serializeModel = (m: ModelWithConnector): ModelResource =>
  resource(m.id, "models", {
    name: m.name,
    description: m.description,
    query: m.query,
    query_type: m.queryType,
    configuration: parseStored(jsonObjectSchema, m.configuration, `configuration of model ${m.id}`),
    primary_key: m.primaryKey,
    connector_id: m.connectorId,
    workspace_id: m.workspaceId,
    connector: {
      id: m.connector.id,
      name: m.connector.name,
      connector_name: connectorName(m.connector),
      icon: connectorIcon(m.connector),
    },
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
  } satisfies ModelAttributes);
