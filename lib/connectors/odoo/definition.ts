// The Odoo definitions (source and destination share one form): the reference's settings (url,
// database, username, password) unchanged, plus an optional timeout of ours. The password may be
// an API key (Odoo 14+ accepts one wherever a password goes). `url`, `database` and `username` say
// where the password goes, so a masked password never follows a change of any of them.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { numberField, secondsToMs, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";

const DOCUMENTATION_URL = "https://www.odoo.com/documentation/17.0/developer/reference/external_api.html";

const specification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Odoo",
  type: "object",
  required: ["url", "database", "username", "password"],
  properties: {
    url: {
      type: "string",
      title: "URL",
      description: "The Odoo server's address, e.g. https://mycompany.odoo.com.",
      format: "uri",
      pattern: "^https?://",
      order: 0,
    },
    database: { type: "string", title: "Database", description: "The Odoo database to log in to.", minLength: 1, order: 1 },
    username: { type: "string", title: "Username", description: "The login of the Odoo user the connector acts as.", minLength: 1, order: 2 },
    password: {
      type: "string",
      title: "Password",
      description: "That user's password, or better an API key made for this connector (Preferences, Account Security).",
      minLength: 1,
      secret: true,
      multiwoven_secret: true,
      order: 3,
    },
    timeout: {
      type: "integer",
      title: "Timeout (seconds)",
      description: "How long to wait for each answer from Odoo.",
      minimum: 1,
      maximum: 300,
      default: 60,
      order: 4,
    },
  },
};

const shared = {
  name: "Odoo",
  title: "Odoo",
  category: "Database",
  icon: "/icons/odoo.svg",
  documentationUrl: DOCUMENTATION_URL,
  connectionSpecification: specification,
  secretTargetFields: ["url", "database", "username"],
  streamType: "dynamic",
} as const satisfies Omit<ConnectorDefinition, "connectorType">;

/** The source's form adds the hard bounds of a read: a server that keeps answering full pages cannot keep it running. */
const sourceSpecification: JsonSchema = {
  ...specification,
  properties: {
    ...(specification.properties as Record<string, JsonSchema>),
    max_pages: { type: "integer", title: "Most pages per read", description: "A read that would need more pages fails instead of running on.", minimum: 1, maximum: 100000, default: 10000, order: 5 },
    read_timeout: { type: "integer", title: "Longest read (seconds)", description: "A read still paging after this long fails.", minimum: 10, maximum: 86400, default: 3600, order: 6 },
  },
};

export const odooSourceDefinition: ConnectorDefinition = { ...shared, connectionSpecification: sourceSpecification, connectorType: "source", supportsQuery: true };

export const odooDestinationDefinition: ConnectorDefinition = {
  ...shared,
  connectorType: "destination",
  // `create` makes a new record each time it is called: the engine keeps a delivery ledger.
  idempotentWrites: false,
  writeModes: ["insert"],
};

/** The typed settings. */
export interface OdooSettings {
  /** The server's root, without a trailing slash. */
  url: string;
  database: string;
  username: string;
  password: string;
  timeoutMs: number;
  /** Most search_read pages one read makes (the source's max_pages). */
  maxPages: number;
  /** Longest one read pages (the source's read_timeout). */
  readTimeoutMs: number;
}

export function odooSettings(config: Row): OdooSettings {
  const url = stringField(config, "url").trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/i.test(url)) throw new ConnectorError(`"${url}" is not an Odoo address (http:// or https://).`);
  return {
    url,
    database: stringField(config, "database"),
    username: stringField(config, "username"),
    password: stringField(config, "password"),
    timeoutMs: secondsToMs(config, "timeout", 60),
    maxPages: Math.min(100_000, Math.max(1, Math.floor(numberField(config, "max_pages", 10_000)))),
    readTimeoutMs: Math.min(86_400, Math.max(10, numberField(config, "read_timeout", 3600))) * 1000,
  };
}
