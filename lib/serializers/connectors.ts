// Connector resources. The configuration is decrypted and every secret field of the definition is
// masked here, so no endpoint can return a secret by forgetting to.
import { getDefinition, maskSecrets, SECRET_MASK } from "@/lib/connectors/registry";
import type { Row } from "@/lib/connectors/types";
import { decryptJson } from "@/lib/crypto/encryption";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { absoluteUrl } from "@/lib/http/public-origin";
import type { Connector } from "@/lib/generated/prisma/client";
import type { ConnectorAttributes, ConnectorResource } from "./connectors.schema";
import { iso, resource } from "./resource";

/** Without a definition we cannot tell secrets apart, so every value is masked. */
function maskEverything(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskEverything);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskEverything(v)]));
  return value === null || value === undefined || value === "" ? value : SECRET_MASK;
}

export function maskedConfiguration(connector: Connector): Row {
  const config = decryptJson(jsonObjectSchema, connector.configurationEncrypted, `configuration of connector ${connector.id}`);
  const definition = getDefinition(connector.connectorName, connector.connectorType);
  return definition ? maskSecrets(config, definition) : (maskEverything(config) as Row);
}

/**
 * The definition's name as the API shows it: the reference's, even for a row that still holds an
 * alias (stored names were migrated; this keeps a row written by an older server right too).
 */
export const connectorName = (c: Pick<Connector, "connectorName" | "connectorType">): string =>
  getDefinition(c.connectorName, c.connectorType)?.name ?? c.connectorName;

/** The definition's icon as an absolute URL on this server (the reference console loads it from its own origin). */
export const connectorIcon = (c: Pick<Connector, "connectorName" | "connectorType">): string => {
  const icon = getDefinition(c.connectorName, c.connectorType)?.icon;
  return icon ? absoluteUrl(icon) : "";
};

export const serializeConnector = (c: Connector): ConnectorResource =>
  resource(c.id, "connectors", {
    name: c.name,
    connector_type: c.connectorType,
    connector_name: connectorName(c),
    category: c.category,
    description: c.description,
    workspace_id: c.workspaceId,
    configuration: maskedConfiguration(c),
    icon: connectorIcon(c),
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  } satisfies ConnectorAttributes);
