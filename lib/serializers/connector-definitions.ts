// Connector definitions as the reference lists them: plain objects (they have no database id).
import type { ConnectorDefinition } from "@/lib/connectors/types";
import { supportedWriteModes } from "@/lib/sync-rules/write-mode";
import { absoluteUrl } from "@/lib/http/public-origin";
import type { ConnectorDefinitionBody } from "./connector-definitions.schema";

export const serializeConnectorDefinition = (d: ConnectorDefinition): ConnectorDefinitionBody => ({
  name: d.name,
  title: d.title,
  connector_type: d.connectorType,
  category: d.category,
  sub_category: d.subCategory ?? null,
  icon: absoluteUrl(d.icon),
  documentation_url: d.documentationUrl,
  // Sources write nothing: an empty list.
  supported_write_modes: d.connectorType === "destination" ? [...supportedWriteModes(d)] : [],
  connector_spec: {
    documentation_url: d.documentationUrl,
    connection_specification: d.connectionSpecification,
    stream_type: d.streamType,
    supports_query: d.supportsQuery === true,
    // Where the secrets go: changing one of these needs the secrets entered again.
    secret_target_fields: d.secretTargetFields ?? [],
  },
});
