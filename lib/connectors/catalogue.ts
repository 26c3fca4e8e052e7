// Every connector, as the registry lists it: its definition, imported at once (names, categories and
// JSON schemas are what the catalogue, validation and masking need), and its implementation, imported
// on first use. The implementations pull in client libraries (AWS SDK clients, ssh2, mysql2, …) and
// every adapter's code: imported eagerly they cost every process that imports the registry ~35 MiB,
// whether it ever runs them or not (the idle worker: ~20 MiB; bench/README.md, 2026-11-29 b).
// Connectors without a definition module of their own (the REST kit's destinations, the vector
// stores) are small and stay eager.
import type { ConnectorDefinition, DestinationConnector, SourceConnector } from "./types";
import { lazyModule } from "./shared/lazy-module";
import { postgresqlDestinationDefinition, postgresqlSourceDefinition } from "./postgresql/definition";
import { httpDestinationDefinition } from "./http/definition";
import { mariadbDestinationDefinition, mariadbSourceDefinition } from "./mariadb/definition";
import { slackDestinationDefinition } from "./slack/definition";
import { httpModelSourceDefinition } from "./http-model/definition";
import { duckdbSourceDefinition } from "./duckdb/definition";
import { redisDestinationDefinition } from "./redis/definition";
import { rabbitmqDestinationDefinition } from "./rabbitmq/definition";
import { natsDestinationDefinition } from "./nats/definition";
import { mqttDestinationDefinition } from "./mqtt/definition";
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
import { openAiSourceDefinition } from "./openai/definition";
import { anthropicSourceDefinition } from "./anthropic/definition";
import { awsBedrockModelSourceDefinition } from "./aws-bedrock-model/definition";
import { awsSagemakerModelSourceDefinition } from "./aws-sagemaker-model/definition";
import { vertexModelSourceDefinition } from "./vertex-model/definition";
import { databricksModelSourceDefinition } from "./databricks-model/definition";
import { watsonxAiSourceDefinition } from "./watsonx-ai/definition";
import { genericOpenAiSourceDefinition } from "./generic-openai/definition";
import { redshiftSourceDefinition } from "./redshift/definition";
import { watsonxDataSourceDefinition } from "./watsonx-data/definition";
import { bigquerySourceDefinition } from "./bigquery/definition";
import { athenaSourceDefinition } from "./aws-athena/definition";
import { clickhouseSourceDefinition } from "./clickhouse/definition";
import { snowflakeSourceDefinition } from "./snowflake/definition";
import { databricksSourceDefinition } from "./databricks/definition";
import { s3DestinationDefinition, s3SourceDefinition } from "./amazon-s3/definition";
import { sftpDestinationDefinition, sftpSourceDefinition } from "./sftp/definition";
import { googleDriveSourceDefinition } from "./google-drive/definition";
import { httpSourceDefinition } from "./http-source/definition";
import { quickbooksSourceDefinition } from "./intuit-quickbooks/definition";
import { firecrawlSourceDefinition } from "./firecrawl/definition";
import { odooDestinationDefinition, odooSourceDefinition } from "./odoo/definition";
import { microsoftExcelDestination } from "./microsoft-excel/destination";
import { aisDataStoreDestinationDefinition } from "./ais-data-store/definition";
import { microsoftSqlDestinationDefinition } from "./microsoft-sql/definition";
import { oracleDestinationDefinition, oracleSourceDefinition } from "./oracle/definition";
import { consumerGoodsSource } from "./salesforce-consumer-goods-cloud/source";
import { consumerGoodsDestination } from "./salesforce-consumer-goods-cloud/destination";
import { databricksLakehouseDefinition } from "./databricks-lakehouse/definition";
import { qdrantSource } from "./qdrant/source";
import { pineconeSource } from "./pinecone/source";
import { pineconeDestination } from "./pinecone/destination";
import { qdrantDestination } from "./qdrant/destination";
import { weaviateDestination } from "./weaviate/destination";

/** A connector the registry knows: its definition now, its implementation when first asked for. */
export interface ConnectorEntry<C extends SourceConnector | DestinationConnector> {
  definition: ConnectorDefinition;
  /** The implementation, imported on the first call (the same object every time). */
  load(): Promise<C>;
}

/**
 * An entry whose implementation is imported on first use. The implementation must carry this very
 * definition: a second copy could drift from the one the catalogue shows and validates against.
 */
function lazy<C extends SourceConnector | DestinationConnector>(definition: ConnectorDefinition, importer: () => Promise<C>): ConnectorEntry<C> {
  const implementation = lazyModule(async () => {
    const connector = await importer();
    if (connector.definition !== definition) throw new Error(`The ${definition.connectorType} ${definition.name} implements another definition than its entry's.`);
    return connector;
  });
  return { definition, load: implementation.load };
}

/** An entry for a connector imported with the registry (small, no client library of its own). */
function eager<C extends SourceConnector | DestinationConnector>(connector: C): ConnectorEntry<C> {
  return { definition: connector.definition, load: () => Promise.resolve(connector) };
}

export const sourceEntries: ConnectorEntry<SourceConnector>[] = [
  lazy(postgresqlSourceDefinition, async () => (await import("./postgresql/source")).postgresqlSource),
  lazy(mariadbSourceDefinition, async () => (await import("./mariadb/source")).mariadbSource),
  lazy(duckdbSourceDefinition, async () => (await import("./duckdb/isolated")).duckdbSource),
  lazy(httpModelSourceDefinition, async () => (await import("./http-model/source")).httpModelSource),
  lazy(openAiSourceDefinition, async () => (await import("./openai/source")).openAiSource),
  lazy(anthropicSourceDefinition, async () => (await import("./anthropic/source")).anthropicSource),
  lazy(awsBedrockModelSourceDefinition, async () => (await import("./aws-bedrock-model/source")).awsBedrockModelSource),
  lazy(awsSagemakerModelSourceDefinition, async () => (await import("./aws-sagemaker-model/source")).awsSagemakerModelSource),
  lazy(vertexModelSourceDefinition, async () => (await import("./vertex-model/source")).vertexModelSource),
  lazy(databricksModelSourceDefinition, async () => (await import("./databricks-model/source")).databricksModelSource),
  lazy(watsonxAiSourceDefinition, async () => (await import("./watsonx-ai/source")).watsonxAiSource),
  lazy(genericOpenAiSourceDefinition, async () => (await import("./generic-openai/source")).genericOpenAiSource),
  // Warehouses.
  lazy(snowflakeSourceDefinition, async () => (await import("./snowflake/source")).snowflakeSource),
  lazy(bigquerySourceDefinition, async () => (await import("./bigquery/source")).bigquerySource),
  lazy(databricksSourceDefinition, async () => (await import("./databricks/source")).databricksSource),
  lazy(redshiftSourceDefinition, async () => (await import("./redshift/source")).redshiftSource),
  lazy(athenaSourceDefinition, async () => (await import("./aws-athena/source")).athenaSource),
  lazy(watsonxDataSourceDefinition, async () => (await import("./watsonx-data/source")).watsonxDataSource),
  lazy(clickhouseSourceDefinition, async () => (await import("./clickhouse/source")).clickhouseSource),
  // Files (lib/connectors/files).
  lazy(s3SourceDefinition, async () => (await import("./amazon-s3/source")).s3Source),
  lazy(sftpSourceDefinition, async () => (await import("./sftp/source")).sftpSource),
  lazy(googleDriveSourceDefinition, async () => (await import("./google-drive/source")).googleDriveSource),
  // APIs.
  lazy(httpSourceDefinition, async () => (await import("./http-source/source")).httpSource),
  lazy(quickbooksSourceDefinition, async () => (await import("./intuit-quickbooks/source")).quickbooksSource),
  lazy(firecrawlSourceDefinition, async () => (await import("./firecrawl/source")).firecrawlSource),
  // Business applications over their APIs.
  lazy(odooSourceDefinition, async () => (await import("./odoo/source")).odooSource),
  // Tested up to the driver's call only (docs/connectors/oracle.md).
  lazy(oracleSourceDefinition, async () => (await import("./oracle/source")).oracleSource),
  // SaaS APIs.
  eager(consumerGoodsSource),
  // Vector databases.
  eager(pineconeSource),
  eager(qdrantSource),
];

export const destinationEntries: ConnectorEntry<DestinationConnector>[] = [
  lazy(postgresqlDestinationDefinition, async () => (await import("./postgresql/destination")).postgresqlDestination),
  lazy(mariadbDestinationDefinition, async () => (await import("./mariadb/destination")).mariadbDestination),
  lazy(httpDestinationDefinition, async () => (await import("./http/destination")).httpDestination),
  lazy(slackDestinationDefinition, async () => (await import("./slack/destination")).slackDestination),
  lazy(redisDestinationDefinition, async () => (await import("./redis/destination")).redisDestination),
  lazy(rabbitmqDestinationDefinition, async () => (await import("./rabbitmq/destination")).rabbitmqDestination),
  lazy(natsDestinationDefinition, async () => (await import("./nats/destination")).natsDestination),
  lazy(mqttDestinationDefinition, async () => (await import("./mqtt/destination")).mqttDestination),
  // SaaS destinations built with the REST kit (rest-kit/).
  eager(hubspotDestination),
  eager(airtableDestination),
  eager(brazeDestination),
  eager(iterableDestination),
  eager(klaviyoDestination),
  eager(mailchimpDestination),
  eager(salesforceDestination),
  eager(consumerGoodsDestination),
  eager(googleSheetsDestination),
  eager(facebookCustomAudienceDestination),
  eager(microsoftDynamicsDestination),
  eager(zendeskDestination),
  eager(stripeDestination),
  eager(microsoftExcelDestination),
  lazy(odooDestinationDefinition, async () => (await import("./odoo/destination")).odooDestination),
  // Files (lib/connectors/files).
  lazy(s3DestinationDefinition, async () => (await import("./amazon-s3/destination")).s3Destination),
  lazy(sftpDestinationDefinition, async () => (await import("./sftp/destination")).sftpDestination),
  // Databases that speak another database's protocol, or are tested up to their driver only.
  lazy(aisDataStoreDestinationDefinition, async () => (await import("./ais-data-store/destination")).aisDataStoreDestination),
  lazy(microsoftSqlDestinationDefinition, async () => (await import("./microsoft-sql/destination")).microsoftSqlDestination),
  lazy(oracleDestinationDefinition, async () => (await import("./oracle/destination")).oracleDestination),
  // Warehouses.
  lazy(databricksLakehouseDefinition, async () => (await import("./databricks-lakehouse/destination")).databricksLakehouseDestination),
  // Vector databases.
  eager(pineconeDestination),
  eager(qdrantDestination),
  eager(weaviateDestination),
];
