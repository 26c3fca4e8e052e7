// The AmazonS3 source's and destination's settings, typed from their specifications (the
// reference's fields, unchanged): what the adapters read instead of untyped configuration objects.
import { env } from "@/lib/settings/env";
import type { ConfigurationProblem, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import type { S3Role } from "./role";

/** Where and how to reach a bucket: what the S3 client needs (client.ts). */
export interface S3Target {
  region: string;
  bucket: string;
  /** The access key (auth_type user); empty with a role. */
  accessKeyId: string;
  secretAccessKey: string;
  /** auth_type role: the role assumed with STS, whose temporary credentials sign the requests. */
  role?: S3Role;
  /** A custom S3-compatible endpoint (MinIO, s3rver); undefined: AWS. */
  endpoint?: string;
  pathStyle: boolean;
}

export interface S3SourceConfig extends S3Target {
  /** Key prefix the path names: `""` or ending in `/` (the reference's `/path/to/files` → `path/to/files/`). */
  root: string;
  fileType?: "csv" | "parquet";
}

export interface S3DestinationConfig extends S3Target {
  /** Key prefix of the written files: `""` or ending in `/`. */
  directory: string;
  fileName: string;
  format: "csv";
}

const text = (config: Row, key: string): string | undefined => {
  const v = config[key];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
};

const required = (config: Row, key: string): string => {
  const v = text(config, key);
  if (v === undefined) throw new ConnectorError(`The configuration is missing "${key}".`);
  return v;
};

/** The reference accepts `true` and `"true"` alike. */
const flag = (value: unknown) => value === true || String(value).toLowerCase() === "true";

/** `/a/b`, `a/b/`, `a/b` → `a/b/`; empty → `""`. */
export function keyPrefix(path: string | undefined): string {
  const trimmed = (path ?? "").trim().replace(/^\/+/, "").replace(/\/+$/, "");
  return trimmed === "" ? "" : `${trimmed}/`;
}

export const UNSTRUCTURED_UNSUPPORTED =
  "data_type unstructured (listing and downloading documents) is not available on this server: use data_type structured to query CSV or Parquet files.";

/**
 * Role auth signs AssumeRole with the server's own AWS identity: any role that trusts it (the
 * operator's own, meant for other things) would be open to every tenant. So it is the operator's
 * choice, off unless S3_ROLE_AUTH says otherwise.
 */
export const ROLE_AUTH_OFF =
  "auth_type role is off on this server: the operator turns it on with S3_ROLE_AUTH=on. Use auth_type user with an access key meanwhile.";

/** What the source refuses although its schema accepts it (a 422 on save). */
export function sourceProblems(config: Row): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  if (config.data_type === "unstructured") problems.push({ path: "data_type", message: UNSTRUCTURED_UNSUPPORTED });
  if (config.auth_type === "role" && !env.S3_ROLE_AUTH) problems.push({ path: "auth_type", message: ROLE_AUTH_OFF });
  return problems;
}

export function sourceConfig(config: Row): S3SourceConfig {
  const problem = sourceProblems(config)[0];
  if (problem) throw new ConnectorError(problem.message);
  const fileType = text(config, "file_type");
  const role = config.auth_type === "role";
  return {
    region: required(config, "region"),
    bucket: required(config, "bucket"),
    accessKeyId: role ? "" : required(config, "access_id"),
    secretAccessKey: role ? "" : required(config, "secret_access"),
    ...(role ? { role: { arn: required(config, "arn"), externalId: required(config, "external_id") } } : {}),
    endpoint: text(config, "endpoint"),
    pathStyle: flag(config.path_style),
    root: keyPrefix(text(config, "path")),
    fileType: fileType === "csv" || fileType === "parquet" ? fileType : undefined,
  };
}

export function destinationConfig(config: Row): S3DestinationConfig {
  const fileName = required(config, "file_name");
  if (fileName.includes("/")) throw new ConnectorError("file_name is a name, not a path: put the directories in file_path.");
  return {
    region: required(config, "region"),
    bucket: required(config, "bucket_name"),
    accessKeyId: required(config, "access_key_id"),
    secretAccessKey: required(config, "secret_access_key"),
    endpoint: text(config, "endpoint"),
    pathStyle: flag(config.path_style),
    directory: keyPrefix(text(config, "file_path")),
    fileName,
    format: "csv",
  };
}
