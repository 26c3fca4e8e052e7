// The SFTP source and destination definitions: the reference's settings (host, port, username,
// password, and the file's place) plus optional fields of ours for pinning the host key, key-based
// login and timeouts.
import { JSON_SCHEMA_DRAFT, serverPortField } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema } from "../types";
import { normalizeFingerprint } from "./fingerprint";

/** The connection fields both share (orders 0–3, then ours from 20 on). */
const connectionFields = {
  host: { type: "string", title: "Host", description: "Host name or IP address of the SFTP server.", minLength: 1, order: 0 },
  port: serverPortField(22, 1),
  username: { type: "string", title: "User name", description: "Account to log in as.", minLength: 1, order: 2 },
  password: {
    type: "string",
    title: "Password",
    description: "Password of the account (may be empty when a private key is given).",
    secret: true,
    multiwoven_secret: true,
    order: 3,
  },
};

const extraFields = {
  host_key_fingerprint: {
    type: "string",
    title: "Host key fingerprint",
    description:
      "Optional: the server's host key as `ssh-keygen -l -f <key>` prints it (SHA256:…). When set, a server presenting another key is refused; when empty, any key is accepted and the connection check reports the one it saw, to pin.",
    maxLength: 100,
    order: 20,
  },
  private_key: {
    type: "string",
    title: "Private key",
    description: "Optional: an OpenSSH or PEM private key to log in with, instead of or besides the password.",
    secret: true,
    multiwoven_secret: true,
    multiline: true,
    maxLength: 20000,
    order: 21,
  },
  passphrase: {
    type: "string",
    title: "Key passphrase",
    description: "Optional: the passphrase of an encrypted private key.",
    secret: true,
    multiwoven_secret: true,
    order: 22,
  },
  connect_timeout: {
    type: "integer",
    title: "Connect timeout (seconds)",
    description: "How long to wait for the connection, the SSH handshake and the login.",
    minimum: 1,
    maximum: 300,
    default: 20,
    order: 23,
  },
  operation_timeout: {
    type: "integer",
    title: "Operation timeout (seconds)",
    description: "Longest one remote call, or a transfer's pause between two chunks, may take.",
    minimum: 1,
    maximum: 3600,
    default: 60,
    order: 24,
  },
};

const sourceSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "SFTP",
  type: "object",
  required: ["host", "username", "password", "file_path", "file_name", "format_type"],
  properties: {
    ...connectionFields,
    file_path: { type: "string", title: "File path", description: "Directory on the server that holds the file (relative paths start at the account's home).", order: 4 },
    file_name: { type: "string", title: "File name", description: "Name of the file without its extension: `people` reads `people.csv`.", minLength: 1, order: 5 },
    format_type: { type: "string", title: "File format", description: "Format of the file.", enum: ["csv"], default: "csv", order: 6 },
    ...extraFields,
  },
};

const destinationSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "SFTP",
  type: "object",
  required: ["host", "username", "password", "destination_path", "format"],
  properties: {
    ...connectionFields,
    destination_path: { type: "string", title: "Destination path", description: "Directory on the server the files are written into (it must exist).", order: 4 },
    file_name: {
      type: "string",
      title: "File name",
      description: "Start of each file's name: a batch becomes `<file name>_<batch fingerprint>.csv` (default `records`).",
      pattern: "^[^/\\\\]*$",
      maxLength: 200,
      order: 5,
    },
    format: {
      type: "object",
      title: "Output format",
      description: "How the records are written.",
      required: ["format_type"],
      order: 6,
      properties: {
        format_type: { type: "string", title: "File format", description: "Format of the files.", enum: ["csv"], default: "csv" },
        compression_type: {
          type: "string",
          title: "Compression",
          description: "un_compressed writes `.csv` files; zip writes each as a `.zip` archive holding the `.csv`.",
          enum: ["un_compressed", "zip"],
          default: "un_compressed",
        },
      },
    },
    ...extraFields,
  },
};

function fingerprintProblems(config: Record<string, unknown>) {
  const value = config.host_key_fingerprint;
  if (typeof value !== "string" || value === "" || normalizeFingerprint(value)) return [];
  return [{ path: "host_key_fingerprint", message: "must look like SHA256:… (43 base64 characters), as `ssh-keygen -l -f <key>` prints it" }];
}

const common = {
  name: "Sftp",
  title: "SFTP",
  category: "File Storage",
  icon: "/icons/sftp.svg",
  documentationUrl: "https://datatracker.ietf.org/doc/html/draft-ietf-secsh-filexfer-02",
  secretTargetFields: ["host", "port", "host_key_fingerprint"],
  configurationProblems: fingerprintProblems,
} as const;

export const sftpSourceDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "source",
  subCategory: "Relational Database",
  connectionSpecification: sourceSpecification,
  streamType: "dynamic",
  supportsQuery: true,
};

export const sftpDestinationDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "destination",
  connectionSpecification: destinationSpecification,
  streamType: "user_defined",
  writeModes: ["upsert", "insert"],
};
