// The AmazonS3 source and destination definitions: the reference's settings, field for field
// (names, required fields, enums, defaults), described in our own words.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sourceProblems } from "./config";

const endpointField = (order: number) => ({
  type: "string",
  title: "Custom endpoint",
  description:
    "The URL of an S3-compatible store (MinIO, Ceph, a local test server), e.g. http://localhost:9000. Leave empty for Amazon S3 itself.",
  examples: ["http://localhost:9000"],
  order,
});

const pathStyleField = (order: number) => ({
  type: "boolean",
  title: "Path-style URLs",
  description:
    "Address the bucket as endpoint/bucket/key instead of bucket.endpoint/key; most S3-compatible stores with a custom endpoint need it.",
  default: false,
  order,
});

export const s3SourceDefinition: ConnectorDefinition = {
  name: "AmazonS3",
  title: "Amazon S3",
  connectorType: "source",
  category: "Data Lake",
  subCategory: "Relational Database",
  icon: "/icons/amazon-s3.svg",
  documentationUrl: "https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html",
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "AmazonS3",
    type: "object",
    if: { properties: { auth_type: { enum: ["user"] } } },
    then: { required: ["auth_type", "region", "bucket", "access_id", "secret_access"] },
    else: { required: ["auth_type", "region", "bucket", "arn", "external_id"] },
    properties: {
      auth_type: {
        type: "string",
        title: "Authentication",
        description: "user: an IAM user's access key; role: assume an IAM role by its ARN, with this server's own AWS identity (AWS STS AssumeRole).",
        enum: ["user", "role"],
        default: "user",
        order: 0,
      },
      arn: { type: "string", title: "IAM role ARN", description: "The role to assume (auth_type role).", order: 1 },
      external_id: {
        type: "string",
        title: "External id",
        description: "The external id the role's trust policy expects (auth_type role).",
        order: 2,
      },
      access_id: { type: "string", title: "Access key id", description: "The IAM user's access key id (auth_type user).", order: 3 },
      secret_access: {
        type: "string",
        title: "Secret access key",
        description: "The IAM user's secret access key (auth_type user); stored encrypted, never shown again.",
        secret: true,
        multiwoven_secret: true,
        order: 4,
      },
      region: { type: "string", title: "Region", description: "The bucket's AWS region.", examples: ["us-east-2"], order: 5 },
      bucket: { type: "string", title: "Bucket", description: "The bucket holding the files.", order: 6 },
      path: {
        type: "string",
        title: "Path",
        description:
          "The folder (key prefix) of the files, e.g. /exports/daily. Model queries may name its files relative to it ('people.csv', '2024/*.parquet') or by URL (s3://bucket/exports/daily/people.csv).",
        examples: ["/path/to/files"],
        order: 7,
      },
      file_type: {
        type: "string",
        title: "File type",
        description: "Which files discovery lists: csv or parquet (empty: CSV, JSON lines and Parquet alike).",
        enum: ["csv", "parquet"],
        order: 8,
      },
      data_type: {
        type: "string",
        title: "Data format",
        description: "structured: files of rows, queried with SQL. (unstructured documents are not available on this server.)",
        oneOf: [
          { const: "structured", title: "Tables and records (structured)" },
          { const: "unstructured", title: "Documents and files (unstructured)" },
        ],
        default: "structured",
        order: 9,
      },
      endpoint: endpointField(10),
      path_style: pathStyleField(11),
    },
  },
  secretTargetFields: ["endpoint"],
  streamType: "dynamic",
  supportsQuery: true,
  configurationProblems: sourceProblems,
};

export const s3DestinationDefinition: ConnectorDefinition = {
  name: "AmazonS3",
  title: "Amazon S3",
  connectorType: "destination",
  category: "File Storage",
  icon: "/icons/amazon-s3.svg",
  documentationUrl: "https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html",
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "AmazonS3",
    type: "object",
    required: ["access_key_id", "secret_access_key", "region", "bucket_name", "file_name", "format_type"],
    properties: {
      access_key_id: { type: "string", title: "Access key id", description: "The IAM user's access key id.", order: 0 },
      secret_access_key: {
        type: "string",
        title: "Secret access key",
        description: "The IAM user's secret access key; stored encrypted, never shown again.",
        secret: true,
        multiwoven_secret: true,
        order: 1,
      },
      region: { type: "string", title: "Region", description: "The bucket's AWS region.", order: 2 },
      bucket_name: { type: "string", title: "Bucket", description: "The bucket the files are written to.", order: 3 },
      file_path: {
        type: "string",
        title: "Folder",
        description: "The folder (key prefix) the files go into, e.g. exports/contacts/ (empty: the bucket's top).",
        order: 4,
      },
      file_name: {
        type: "string",
        title: "File name",
        description: "The start of each file's name; every batch of a run is written as <file_name>_<date>_<batch id>.csv.",
        order: 5,
      },
      format_type: {
        type: "string",
        title: "File format",
        description: "The files' format.",
        enum: ["csv"],
        default: "csv",
        order: 6,
      },
      endpoint: endpointField(7),
      path_style: pathStyleField(8),
    },
  },
  secretTargetFields: ["endpoint"],
  streamType: "user_defined",
  writeModes: ["upsert", "insert"],
};
