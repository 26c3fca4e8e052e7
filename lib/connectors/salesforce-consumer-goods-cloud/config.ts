// Salesforce Consumer Goods Cloud's settings, shared by its source and destination: the reference's
// username-password login (username, password + security token, a connected app's client id and
// secret, the login host), plus our optional API version, base URL override and timeout.
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { optionalString } from "../shared/config";
import { secretField, restSpecification } from "../rest-kit/fields";
import type { ClientCredentials } from "../rest-kit/oauth";

export const TITLE = "Salesforce Consumer Goods Cloud";
/** The objects of a Consumer Goods Cloud org that are discovered (the reference's list). */
export const CONSUMER_GOODS_OBJECTS = ["Account", "User", "Visit", "RetailStore", "RecordType"];
export const DEFAULT_API_VERSION = "v59.0";

export const connectionSpecification: JsonSchema = restSpecification(
  TITLE,
  { required: "Overrides https://<host> for the login and the API (a proxy or a test server); leave empty normally.", title: "API base URL (advanced)" },
  {
    username: { type: "string", title: "Username", description: "The Salesforce user the connector logs in as, e.g. integration@acme-retail.com.", order: 0 },
    password: secretField("Password", "That user's password.", 1),
    host: { type: "string", title: "Host", description: "The login host: login.salesforce.com, test.salesforce.com for a sandbox, or your My Domain (acme.my.salesforce.com).", order: 2 },
    client_id: { type: "string", title: "Client ID", description: "The connected app's consumer key.", order: 3 },
    client_secret: secretField("Client Secret", "The connected app's consumer secret.", 4),
    security_token: { ...secretField("Security Token", "The user's security token, sent after the password (empty when the org trusts the IP range).", 5), minLength: 0 },
    api_version: { type: "string", title: "API version", description: "REST API version, e.g. v59.0.", default: DEFAULT_API_VERSION, pattern: "^v\\d{2,3}\\.0$", order: 6 },
  },
  ["username", "password", "host", "security_token", "client_id", "client_secret"],
);

/** The password grant against the login host; the API is then at the instance_url it answers. */
export const passwordAuth: ClientCredentials = {
  kind: "oauth_client_credentials",
  tokenPath: "/services/oauth2/token",
  clientIdField: "client_id",
  clientSecretField: "client_secret",
  password: { usernameField: "username", passwordFields: ["password", "security_token"] },
  instanceUrl: true,
  defaultLifetimeSeconds: 900,
};

const HOST = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+(:\d{1,5})?$/;

/** https://<host> (an https:// prefix and a trailing slash are tolerated), or the base_url override. */
export function loginBaseUrl(config: Row): string {
  const override = optionalString(config, "base_url");
  if (override) return override.replace(/\/+$/, "");
  const host = (optionalString(config, "host") ?? "").trim().replace(/^https:\/\//i, "").replace(/\/+$/, "");
  if (!HOST.test(host)) throw new ConnectorError(`"${host}" is not a Salesforce login host (login.salesforce.com, test.salesforce.com or your My Domain).`);
  return `https://${host}`;
}

export function apiVersion(config: Row): string {
  const value = optionalString(config, "api_version") ?? DEFAULT_API_VERSION;
  if (!/^v\d{2,3}\.0$/.test(value)) throw new ConnectorError(`"${value}" is not a Salesforce API version (v59.0).`);
  return value;
}

/** The settings with the login URL as the REST kit's base_url. */
export function consumerGoodsSettings(config: Row): Row {
  return { ...config, base_url: loginBaseUrl(config) };
}
