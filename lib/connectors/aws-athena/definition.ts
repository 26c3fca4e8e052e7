// The Amazon Athena source's definition and its one typed configuration. The specification accepts
// the reference's configuration unchanged (access_key, secret_access_key, region, workgroup,
// catalog, schema, output_location); endpoint and query_timeout are our optional extras.
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";

export const athenaSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "AWS Athena",
  type: "object",
  required: ["access_key", "secret_access_key", "region", "workgroup", "catalog", "output_location"],
  properties: {
    access_key: { type: "string", title: "Access key ID", description: "AWS access key id of an IAM user allowed to run Athena queries.", examples: ["AKIAIOSFODNN7EXAMPLE"], order: 0 },
    secret_access_key: { type: "string", title: "Secret access key", description: "The access key's secret; it signs requests and is never sent.", secret: true, multiwoven_secret: true, order: 1 },
    region: { type: "string", title: "Region", description: "AWS region of the Athena workgroup, e.g. us-east-1.", examples: ["us-east-1"], order: 2 },
    workgroup: { type: "string", title: "Workgroup", description: "Athena workgroup the queries run in (primary by default in AWS).", examples: ["primary"], order: 3 },
    catalog: { type: "string", title: "Catalog", description: "Data catalog of the tables, usually AwsDataCatalog.", examples: ["AwsDataCatalog"], order: 4 },
    schema: { type: "string", title: "Database", description: "Database whose tables discovery lists and unqualified table names refer to. Empty: discovery lists every database of the catalog.", order: 5 },
    output_location: { type: "string", title: "Output location", description: "S3 path where Athena writes query results, e.g. s3://bucket/athena-results/.", examples: ["s3://example-bucket/athena-results/"], order: 6 },
    query_timeout: {
      type: "integer",
      title: "Query timeout (seconds)",
      description: "Longest a query may run before it is stopped, and longest a wait for one page of results.",
      minimum: 1,
      maximum: 21600,
      default: 300,
      order: 7,
    },
    endpoint: {
      type: "string",
      title: "Endpoint",
      description: "Athena API endpoint; empty: the region's (https://athena.<region>.amazonaws.com). Change it only for a private endpoint or a test emulator.",
      order: 8,
    },
  },
};

export const athenaSourceDefinition: ConnectorDefinition = {
  name: "AwsAthena",
  title: "AWS Athena",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/aws-athena.svg",
  documentationUrl: "https://docs.aws.amazon.com/athena/latest/APIReference/Welcome.html",
  connectionSpecification: athenaSpecification,
  // Requests are signed for the region's endpoint; a signature is not a secret, but the access
  // key's use is: it is not carried to another endpoint or region without entering it again.
  secretTargetFields: ["endpoint", "region"],
  streamType: "dynamic",
  supportsQuery: true,
};

export interface AthenaSettings {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  workgroup: string;
  catalog: string;
  database?: string;
  outputLocation: string;
  queryTimeoutMs: number;
  endpoint?: string;
}

export function athenaSettings(config: Row): AthenaSettings {
  const text = (key: string) => {
    const v = config[key];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const need = (key: string) => {
    const v = text(key);
    if (v === undefined) throw new ConnectorError(`${key} is required.`);
    return v;
  };
  const region = need("region");
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region)) throw new ConnectorError(`region must be an AWS region such as us-east-1, not "${region.slice(0, 40)}".`);
  const outputLocation = need("output_location");
  if (!/^s3:\/\/[^/]+/.test(outputLocation)) throw new ConnectorError("output_location must be an S3 path such as s3://bucket/athena-results/.");
  const endpoint = text("endpoint");
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) throw new ConnectorError("endpoint must be an http(s) URL.");
  const timeout = Number(config.query_timeout ?? 300);
  return {
    accessKeyId: need("access_key"),
    secretAccessKey: need("secret_access_key"),
    region,
    workgroup: need("workgroup"),
    catalog: need("catalog"),
    database: text("schema"),
    outputLocation,
    queryTimeoutMs: Math.max(1, Number.isFinite(timeout) ? timeout : 300) * 1000,
    endpoint,
  };
}
