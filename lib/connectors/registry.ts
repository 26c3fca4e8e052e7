// The one place that knows every connector. Definitions are keyed by (type, name): a source and a
// destination may share a name (Postgresql) and are still two connectors.
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type {
  ConnectorDefinition,
  ConnectorKind,
  DestinationConnector,
  Row,
  SourceConnector,
} from "./types";
import { SPEC_KEYWORDS } from "./shared/spec";
import { matchesCategoryFilter, type ConnectorGroup } from "./categories";
import {
  maskConfiguration,
  mergeMaskedConfiguration,
  secretPathList,
  SECRET_MASK,
  SecretTargetChangedError,
} from "./shared/secrets";
import { postgresqlSource } from "./postgresql/source";
import { postgresqlDestination } from "./postgresql/destination";
import { httpDestination } from "./http/destination";
import { mariadbSource } from "./mariadb/source";
import { mariadbDestination } from "./mariadb/destination";
import { slackDestination } from "./slack/destination";
import { httpModelSource } from "./http-model/source";
import { duckdbSource } from "./duckdb/isolated";
import { redisDestination } from "./redis/destination";
import { rabbitmqDestination } from "./rabbitmq/destination";
import { natsDestination } from "./nats/destination";
import { mqttDestination } from "./mqtt/destination";
import { hubspotDestination } from "./hubspot/destination";
import { airtableDestination } from "./airtable/destination";
import { brazeDestination } from "./braze/destination";
import { iterableDestination } from "./iterable/destination";
import { klaviyoDestination } from "./klaviyo/destination";
import { mailchimpDestination } from "./mailchimp/destination";
import { salesforceDestination } from "./salesforce/destination";
import { googleSheetsDestination } from "./google-sheets/destination";
import { facebookCustomAudienceDestination } from "./facebook-custom-audience/destination";
import { microsoftDynamicsDestination } from "./microsoft-dynamics/destination";
import { zendeskDestination } from "./zendesk/destination";
import { stripeDestination } from "./stripe/destination";
import { openAiSource } from "./openai/source";
import { anthropicSource } from "./anthropic/source";
import { awsBedrockModelSource } from "./aws-bedrock-model/source";
import { awsSagemakerModelSource } from "./aws-sagemaker-model/source";
import { vertexModelSource } from "./vertex-model/source";
import { databricksModelSource } from "./databricks-model/source";
import { watsonxAiSource } from "./watsonx-ai/source";
import { genericOpenAiSource } from "./generic-openai/source";
import { redshiftSource } from "./redshift/source";
import { watsonxDataSource } from "./watsonx-data/source";
import { bigquerySource } from "./bigquery/source";
import { athenaSource } from "./aws-athena/source";
import { clickhouseSource } from "./clickhouse/source";
import { snowflakeSource } from "./snowflake/source";
import { databricksSource } from "./databricks/source";
import { s3Source } from "./amazon-s3/source";
import { s3Destination } from "./amazon-s3/destination";
import { sftpSource } from "./sftp/source";
import { sftpDestination } from "./sftp/destination";
import { googleDriveSource } from "./google-drive/source";
import { httpSource } from "./http-source/source";
import { quickbooksSource } from "./intuit-quickbooks/source";
import { firecrawlSource } from "./firecrawl/source";
import { odooSource } from "./odoo/source";
import { odooDestination } from "./odoo/destination";
import { microsoftExcelDestination } from "./microsoft-excel/destination";
import { aisDataStoreDestination } from "./ais-data-store/destination";
import { microsoftSqlDestination } from "./microsoft-sql/destination";
import { oracleSource } from "./oracle/source";
import { oracleDestination } from "./oracle/destination";
import { consumerGoodsSource } from "./salesforce-consumer-goods-cloud/source";
import { consumerGoodsDestination } from "./salesforce-consumer-goods-cloud/destination";
import { databricksLakehouseDestination } from "./databricks-lakehouse/destination";
import { qdrantSource } from "./qdrant/source";
import { pineconeSource } from "./pinecone/source";
import { pineconeDestination } from "./pinecone/destination";
import { qdrantDestination } from "./qdrant/destination";
import { weaviateDestination } from "./weaviate/destination";

export { SECRET_MASK, SecretTargetChangedError };

const sources: SourceConnector[] = [
  postgresqlSource,
  mariadbSource,
  duckdbSource,
  httpModelSource,
  openAiSource,
  anthropicSource,
  awsBedrockModelSource,
  awsSagemakerModelSource,
  vertexModelSource,
  databricksModelSource,
  watsonxAiSource,
  genericOpenAiSource,
  // Warehouses.
  snowflakeSource,
  bigquerySource,
  databricksSource,
  redshiftSource,
  athenaSource,
  watsonxDataSource,
  clickhouseSource,
  // Files (lib/connectors/files).
  s3Source,
  sftpSource,
  googleDriveSource,
  // APIs.
  httpSource,
  quickbooksSource,
  firecrawlSource,
  // Business applications over their APIs.
  odooSource,
  // Tested up to the driver's call only (docs/connectors/oracle.md).
  oracleSource,
  // SaaS APIs.
  consumerGoodsSource,
  // Vector databases.
  pineconeSource,
  qdrantSource,
];
const destinations: DestinationConnector[] = [
  postgresqlDestination,
  mariadbDestination,
  httpDestination,
  slackDestination,
  redisDestination,
  rabbitmqDestination,
  natsDestination,
  mqttDestination,
  // SaaS destinations built with the REST kit (rest-kit/).
  hubspotDestination,
  airtableDestination,
  brazeDestination,
  iterableDestination,
  klaviyoDestination,
  mailchimpDestination,
  salesforceDestination,
  consumerGoodsDestination,
  googleSheetsDestination,
  facebookCustomAudienceDestination,
  microsoftDynamicsDestination,
  zendeskDestination,
  stripeDestination,
  microsoftExcelDestination,
  odooDestination,
  // Files (lib/connectors/files).
  s3Destination,
  sftpDestination,
  // Databases that speak another database's protocol, or are tested up to their driver only.
  aisDataStoreDestination,
  microsoftSqlDestination,
  oracleDestination,
  // Warehouses.
  databricksLakehouseDestination,
  // Vector databases.
  pineconeDestination,
  qdrantDestination,
  weaviateDestination,
];

const byKey = new Map<string, SourceConnector | DestinationConnector>();
for (const connector of [...sources, ...destinations]) {
  const { connectorType, name, aliases = [] } = connector.definition;
  for (const key of [name, ...aliases]) byKey.set(`${connectorType}:${key.toLowerCase()}`, connector);
}

export class UnknownConnectorError extends Error {
  constructor(
    readonly connectorName: string,
    readonly connectorType?: ConnectorKind,
  ) {
    const known = [...byKey.values()]
      .filter((c) => !connectorType || c.definition.connectorType === connectorType)
      .map((c) => c.definition.name);
    super(
      `Unknown ${connectorType ?? "connector"} "${connectorName}". Known ${connectorType ?? "connector"}s: ${[...new Set(known)].join(", ")}.`,
    );
    this.name = "UnknownConnectorError";
  }
}

/**
 * All definitions, sources first, optionally filtered by type and by category: a group (`data`,
 * `ai_ml`) or one category's name (`Data Warehouse`), in any case.
 */
export function listDefinitions(filter: { type?: ConnectorKind; category?: ConnectorGroup | string } = {}): ConnectorDefinition[] {
  return [...sources, ...destinations]
    .map((c) => c.definition)
    .filter(
      (d) =>
        (!filter.type || d.connectorType === filter.type) &&
        (!filter.category || matchesCategoryFilter(d.category, filter.category)),
    );
}

/**
 * Case-insensitive lookup. Without `type`, a name shared by a source and a destination resolves to
 * the source (their configuration schemas are the same for every such pair).
 */
export function getDefinition(name: string, type?: ConnectorKind): ConnectorDefinition | undefined {
  const lower = name.toLowerCase();
  if (type) return byKey.get(`${type}:${lower}`)?.definition;
  return (byKey.get(`source:${lower}`) ?? byKey.get(`destination:${lower}`))?.definition;
}

export function getSource(name: string): SourceConnector {
  const connector = byKey.get(`source:${name.toLowerCase()}`);
  if (!connector) throw new UnknownConnectorError(name, "source");
  return connector as SourceConnector;
}

export function getDestination(name: string): DestinationConnector {
  const connector = byKey.get(`destination:${name.toLowerCase()}`);
  if (!connector) throw new UnknownConnectorError(name, "destination");
  return connector as DestinationConnector;
}

/** Dotted paths of the fields marked `"secret": true`, e.g. `credentials.password`. */
export function secretPaths(definition: ConnectorDefinition): string[] {
  return secretPathList(definition).map((p) => p.join("."));
}

/** A copy with every secret value replaced by `*************` (secret objects keep their keys). */
export function maskSecrets(config: Row, definition: ConnectorDefinition): Row {
  return maskConfiguration(config, definition);
}

/**
 * On update: wherever `incoming` carries the mask under a secret field, keep the stored value, as
 * long as the target (host, URL…) is the same; else throws SecretTargetChangedError.
 */
export function mergeMaskedSecrets(incoming: Row, stored: Row, definition: ConnectorDefinition): Row {
  return mergeMaskedConfiguration(incoming, stored, definition);
}

export interface ConfigurationError {
  /** Dotted path of the field, e.g. `credentials.username`; empty for the object itself. */
  path: string;
  message: string;
}

let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(definition: ConnectorDefinition): ValidateFunction {
  let validate = compiled.get(definition.connectionSpecification);
  if (!validate) {
    if (!ajv) {
      // strictRequired off: conditional `then: {required: [...]}` names fields declared at the top.
      // Draft-07 (ajv's default class), the draft the specifications declare (shared/spec.ts).
      ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
      addFormats(ajv);
      for (const keyword of SPEC_KEYWORDS)
        ajv.addKeyword({ keyword, schemaType: ["boolean", "number", "string"] });
    }
    validate = ajv.compile(definition.connectionSpecification);
    compiled.set(definition.connectionSpecification, validate);
  }
  return validate;
}

function toPath(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

function toConfigurationError(e: ErrorObject): ConfigurationError {
  const base = toPath(e.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  switch (e.keyword) {
    case "required": {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return { path: join(field), message: `${field} is required` };
    }
    case "additionalProperties": {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return { path: join(field), message: `${field} is not a known setting` };
    }
    case "enum":
      return {
        path: base,
        message: `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`,
      };
    default:
      return { path: base, message: e.message ?? "is invalid" };
  }
}

/**
 * Validates a configuration against its definition's JSON Schema; [] when valid. Each error names
 * the field, so the API can return `errors: [{path: "configuration.<path>", message}]`.
 */
export function validateConfiguration(
  definition: ConnectorDefinition,
  config: unknown,
): ConfigurationError[] {
  const validate = validatorFor(definition);
  if (validate(config)) return definition.configurationProblems?.(config as Row) ?? [];
  const errors = (validate.errors ?? [])
    // `if`/`then` report a summary error besides the real one; the real one is enough.
    .filter((e) => e.keyword !== "if")
    .map(toConfigurationError);
  const seen = new Set<string>();
  return errors.filter((e) => {
    const id = `${e.path}\u0000${e.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
