// The typed settings of the SFTP connectors, read once from a configuration the API validated
// against definition.ts (the engine may hand over older stored ones, so each read has its fallback).
import type { Row } from "../types";
import { numberField, objectField, optionalString, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import type { SftpTarget } from "./transport";

export interface SftpSourceConfig {
  target: SftpTarget;
  /** Directory of the file ("" = the login directory). */
  filePath: string;
  /** The file's name with its extension: `<file_name>.<format_type>`. */
  fileName: string;
  formatType: "csv";
}

export interface SftpDestinationConfig {
  target: SftpTarget;
  destinationPath: string;
  fileName: string;
  compression: "un_compressed" | "zip";
}

function target(config: Row): SftpTarget {
  const port = numberField(config, "port", 22);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConnectorError(`port must be a TCP port (1–65535), not ${port}.`);
  const password = typeof config.password === "string" ? config.password : undefined;
  const privateKey = optionalString(config, "private_key");
  if (!password && !privateKey) throw new ConnectorError("Give a password or a private key to log in with.");
  return {
    host: stringField(config, "host").trim(),
    port,
    username: stringField(config, "username"),
    password: password || undefined,
    privateKey,
    passphrase: optionalString(config, "passphrase"),
    hostKeyFingerprint: optionalString(config, "host_key_fingerprint"),
    connectTimeoutMs: numberField(config, "connect_timeout", 20) * 1000,
    operationTimeoutMs: numberField(config, "operation_timeout", 60) * 1000,
  };
}

/** A remote directory as configured: trailing slashes dropped, `""` for the login directory. */
function remoteDir(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "/" ) return "/";
  return text.replace(/\/+$/, "").replace(/^\.$/, "");
}

export function sftpSourceConfig(config: Row): SftpSourceConfig {
  const formatType = stringField(config, "format_type", "csv");
  if (formatType !== "csv") throw new ConnectorError(`format_type "${formatType}" is not supported: use csv.`);
  const name = stringField(config, "file_name");
  return {
    target: target(config),
    filePath: remoteDir(config.file_path),
    fileName: `${name}.${formatType}`,
    formatType,
  };
}

export function sftpDestinationConfig(config: Row): SftpDestinationConfig {
  const format = objectField(config, "format");
  const formatType = typeof format.format_type === "string" ? format.format_type : "csv";
  if (formatType !== "csv") throw new ConnectorError(`format.format_type "${formatType}" is not supported: use csv.`);
  const compression = format.compression_type === "zip" ? "zip" : "un_compressed";
  const fileName = optionalString(config, "file_name") ?? "records";
  if (/[/\\]/.test(fileName)) throw new ConnectorError("file_name is the start of a file's name: it cannot hold / or \\.");
  return { target: target(config), destinationPath: remoteDir(config.destination_path), fileName, compression };
}
