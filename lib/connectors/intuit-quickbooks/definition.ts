// The IntuitQuickBooks source's definition and typed configuration. The specification accepts the
// reference's settings unchanged (environment, client_id, client_secret, realm_id, refresh_token: an
// app's OAuth 2.0 client and a company's refresh token); ours are optional: the API and token
// endpoints (for a private gateway or a test emulator), the API minor version and the bounds of a read.
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";

export const QUICKBOOKS_API = { sandbox: "https://sandbox-quickbooks.api.intuit.com", production: "https://quickbooks.api.intuit.com" } as const;
export const INTUIT_TOKEN_URL = "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer";

const secretText = (title: string, description: string, order: number) => ({ type: "string", title, description, secret: true, multiwoven_secret: true, maxLength: 4096, order });

export const quickbooksSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Intuit QuickBooks",
  type: "object",
  required: ["environment", "client_id", "client_secret", "realm_id", "refresh_token"],
  properties: {
    environment: { type: "string", title: "Environment", description: "sandbox for a developer sandbox company, production for a real one.", enum: ["sandbox", "production"], order: 0 },
    client_id: secretText("Client ID", "The app's client ID (Intuit developer portal → Keys & credentials).", 1),
    client_secret: secretText("Client secret", "The app's client secret.", 2),
    realm_id: secretText("Realm ID", "The company's ID, given with the authorization (also called the company ID).", 3),
    refresh_token: secretText("Refresh token", "The company's OAuth 2.0 refresh token for the app (scope com.intuit.quickbooks.accounting).", 4),
    api_base_url: {
      type: "string",
      title: "API base URL",
      description: "QuickBooks Online Accounting API root; empty: Intuit's for the environment. Change it only for a gateway or a test emulator.",
      pattern: "^https?://",
      maxLength: 2048,
      order: 5,
    },
    token_url: {
      type: "string",
      title: "Token URL",
      description: "Intuit's OAuth 2.0 token endpoint; change it only for a gateway or a test emulator.",
      pattern: "^https?://",
      default: INTUIT_TOKEN_URL,
      maxLength: 2048,
      order: 6,
    },
    minor_version: { type: "string", title: "Minor version", description: "The API minor version asked for (minorversion), e.g. 75. Empty: the API's default.", pattern: "^[0-9]{1,4}$", order: 7 },
    request_timeout: { type: "integer", title: "Request timeout (seconds)", description: "Longest wait for one answer.", minimum: 1, maximum: 600, default: 60, order: 8 },
    max_pages: { type: "integer", title: "Most pages per read", description: "Pages of up to 1000 rows; a read that would need more fails.", minimum: 1, maximum: 100000, default: 10000, order: 9 },
  },
};

export const quickbooksSourceDefinition: ConnectorDefinition = {
  name: "IntuitQuickBooks",
  title: "Intuit QuickBooks",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/intuit-quickbooks.svg",
  documentationUrl: "https://developer.intuit.com/app/developer/qbo/docs/learn/explore-the-quickbooks-online-api/data-queries",
  connectionSpecification: quickbooksSpecification,
  // The access token goes to the API, the client and refresh token to the token endpoint.
  secretTargetFields: ["api_base_url", "token_url"],
  streamType: "dynamic",
  supportsQuery: true,
};

export interface QuickbooksSettings {
  apiBase: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  realmId: string;
  refreshToken: string;
  minorVersion?: string;
  timeoutMs: number;
  maxPages: number;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

export function quickbooksSettings(config: Row): QuickbooksSettings {
  const environment = config.environment === "production" ? "production" : config.environment === "sandbox" ? "sandbox" : undefined;
  if (!environment) throw new ConnectorError("environment must be sandbox or production.");
  const need = (field: string) => {
    const value = text(config[field]);
    if (!value) throw new ConnectorError(`${field} is required.`);
    return value;
  };
  const realmId = need("realm_id");
  if (!/^[0-9A-Za-z]{1,64}$/.test(realmId)) throw new ConnectorError("realm_id must be the company's ID (digits).");
  const apiBase = (text(config.api_base_url) ?? QUICKBOOKS_API[environment]).replace(/\/+$/, "");
  const tokenUrl = text(config.token_url) ?? INTUIT_TOKEN_URL;
  for (const [field, url] of [["api_base_url", apiBase], ["token_url", tokenUrl]]) if (!/^https?:\/\//i.test(url)) throw new ConnectorError(`${field} must be an http(s) URL.`);
  const timeout = Number(config.request_timeout ?? 60);
  const pages = Number(config.max_pages ?? 10_000);
  return {
    apiBase,
    tokenUrl,
    clientId: need("client_id"),
    clientSecret: need("client_secret"),
    realmId,
    refreshToken: need("refresh_token"),
    minorVersion: text(config.minor_version),
    timeoutMs: (Number.isFinite(timeout) ? Math.min(600, Math.max(1, timeout)) : 60) * 1000,
    maxPages: Number.isFinite(pages) ? Math.min(100_000, Math.max(1, Math.floor(pages))) : 10_000,
  };
}
