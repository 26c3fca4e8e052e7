// Salesforce (REST API): records are upserted by an external id field with sObject Collections
// (PATCH /services/data/vXX.X/composite/sobjects/{sObject}/{externalIdField}, allOrNone false), or
// created with POST /composite/sobjects in insert mode, up to 200 per request. The answer is one
// UpsertResult / SaveResult per record, in request order, so only the records with success false
// fail. Auth: OAuth 2.0 client credentials of a connected app against the org's My Domain (the kit
// caches the token and fetches a new one after an INVALID_SESSION_ID 401). Salesforce meters API
// calls per 24 hours and refuses past the allowance with 403 REQUEST_LIMIT_EXCEEDED (not 429): that
// is treated as throttling, with an hour's wait. Reference: developer.salesforce.com (REST API:
// sObject Collections upsert and create, sObject describe, OAuth client credentials flow, API
// limits and the Sforce-Limit-Info header).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

function name(config: Row, key: string, what: string): string {
  const value = typeof config[key] === "string" ? String(config[key]).trim() : "";
  if (!NAME.test(value)) throw new ConnectorError(`"${value}" is not a Salesforce ${what} API name.`);
  return value;
}
const sobject = (config: Row) => name(config, "sobject", "object");
const externalId = (config: Row) => name(config, "external_id_field", "field");

/**
 * The typed settings: the reference's configuration (instance_url, a user's access and refresh
 * tokens) or ours (base_url, client credentials), as the hooks read them. base_url wins over
 * instance_url when both are given (it is the test and proxy override); without an External ID
 * field, records are upserted on Id, as the reference does.
 */
/** instance_url is required unless base_url (the override) is given. */
const withInstanceUrl = (spec: JsonSchema): JsonSchema => ({ ...spec, allOf: [{ if: { required: ["base_url"] }, else: { required: ["instance_url"] } }] });

export function salesforceSettings(config: Row): Row {
  const text = (key: string) => (typeof config[key] === "string" && config[key] !== "" ? String(config[key]) : undefined);
  const baseUrl = text("base_url") ?? text("instance_url");
  return { ...config, ...(baseUrl ? { base_url: baseUrl } : {}), sobject: text("sobject") ?? "Contact", external_id_field: text("external_id_field") ?? "Id" };
}
const version = (config: Row) => {
  const value = typeof config.api_version === "string" && config.api_version !== "" ? config.api_version : "v60.0";
  if (!/^v\d{2,3}\.0$/.test(value)) throw new ConnectorError(`"${value}" is not a Salesforce API version (v60.0).`);
  return value;
};
const data = (config: Row) => `/services/data/${version(config)}`;

function sobjectRecord(record: WriteRecord, ctx: RestContext, needsExternalId: boolean): Row {
  // Upserting on Id, a record without one is created (Salesforce's documented use of Id there).
  if (needsExternalId && externalId(ctx.config) !== "Id") {
    const field = externalId(ctx.config);
    const value = record.payload[field];
    if (value === null || value === undefined || value === "") throw new ConnectorError(`The record has no ${field}, the external id Salesforce upserts on.`);
  }
  return { attributes: { type: sobject(ctx.config) }, ...record.payload };
}

export interface SaveResult {
  id?: string;
  success?: boolean;
  created?: boolean;
  errors?: { statusCode?: string; message?: string; fields?: string[] }[];
}

/** One result per record, in request order. */
export function saveResults(response: RestResponse): RecordResult[] | undefined {
  if (!Array.isArray(response.body)) return undefined;
  return (response.body as SaveResult[]).map((r): RecordResult => {
    if (r.success) return { ok: true, detail: r };
    const error = r.errors?.[0];
    const text = error ? `${error.statusCode ?? "ERROR"}: ${error.message ?? ""}${error.fields?.length ? ` (fields: ${error.fields.join(", ")})` : ""}` : "success: false";
    return { ok: false, error: text, detail: r };
  });
}

function collection(mode: "upsert" | "insert"): WriteEndpoint {
  return {
    item: (record, ctx) => sobjectRecord(record, ctx, mode === "upsert"),
    request: (items, ctx) => ({
      method: mode === "upsert" ? "PATCH" : "POST",
      path: mode === "upsert" ? `${data(ctx.config)}/composite/sobjects/${sobject(ctx.config)}/${externalId(ctx.config)}` : `${data(ctx.config)}/composite/sobjects`,
      body: { allOrNone: false, records: items },
    }),
    results: saveResults,
  };
}

export interface Field {
  name: string;
  label?: string;
  type?: string;
  createable?: boolean;
  updateable?: boolean;
  externalId?: boolean;
  nillable?: boolean;
}

export const FIELD_TYPES: Record<string, JsonSchema["type"]> = {
  int: ["integer", "null"],
  double: ["number", "null"],
  currency: ["number", "null"],
  percent: ["number", "null"],
  boolean: ["boolean", "null"],
};

const describePath = (config: Row) => `${data(config)}/sobjects/${sobject(config)}/describe`;

export const errorOf = (response: RestResponse) => (Array.isArray(response.body) ? (response.body[0] as { errorCode?: string; message?: string } | undefined) : undefined);

export const salesforceDestination = defineRestDestination({
  definition: {
    // The reference's name; Salesforce, our earlier one, answers too (stored ones were renamed).
    name: "SalesforceCrm",
    aliases: ["Salesforce"],
    title: "Salesforce",
    category: "CRM",
    secretTargetFields: ["instance_url"],
    icon: "/icons/salesforce.svg",
    documentationUrl: "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_upsert.htm",
    connectionSpecification: withInstanceUrl(restSpecification(
      "Salesforce",
      { required: "Overrides the instance URL (a proxy or a test server); leave empty to use it.", title: "API base URL (advanced)" },
      {
        instance_url: { type: "string", title: "Instance URL", description: "Your org's My Domain URL, e.g. https://acme.my.salesforce.com: the token and every request go there.", format: "uri", pattern: "^https?://", order: 0 },
        client_id: { type: "string", title: "Consumer key", description: "The connected app's consumer key.", order: 1 },
        client_secret: secretField("Consumer secret", "The connected app's consumer secret.", 2),
        access_token: secretField("Access token", "A user's access token from the connected app's OAuth flow; a fresh one is fetched with the refresh token when it expires.", 3),
        refresh_token: secretField("Refresh token", "The refresh token of that authorisation. Without one, the connected app's client credentials flow (with a run-as user) is used.", 4),
        sobject: { type: "string", title: "Object", description: "API name of the object written to, e.g. Contact or Customer__c.", default: "Contact", order: 5 },
        external_id_field: { type: "string", title: "External ID field", description: "API name of the External ID field records are matched on, e.g. External_Id__c; empty: the record Id.", order: 6 },
        api_version: { type: "string", title: "API version", description: "REST API version, e.g. v60.0 (46.0 or later).", default: "v60.0", pattern: "^v\\d{2,3}\\.0$", order: 7 },
      },
      ["client_id", "client_secret"],
    )),
  },
  settings: salesforceSettings,
  baseUrl: () => {
    throw new ConnectorError("Enter your org's instance URL (https://<domain>.my.salesforce.com).");
  },
  auth: { kind: "oauth_client_credentials", tokenPath: "/services/oauth2/token", clientIdField: "client_id", clientSecretField: "client_secret", refreshTokenField: "refresh_token", defaultLifetimeSeconds: 900 },
  limits: { maxRecords: 200 },
  rate: { limit: 10, unit: "second", concurrency: 4 },
  writes: { upsert: collection("upsert"), insert: collection("insert") },
  check: {
    request: (config) => ({ method: "GET", path: describePath(config) }),
    describe: (response, config) => {
      const field = ((response.body as { fields?: Field[] } | undefined)?.fields ?? []).find((f) => f.name === externalId(config));
      const object = sobject(config);
      if (!field) return `Connected to Salesforce, but ${object} has no field ${externalId(config)}: upserts will fail.`;
      return field.externalId || field.name === "Id" ? `Connected to Salesforce; ${object} can be upserted by ${field.name}.` : `Connected to Salesforce, but ${field.name} is not an External ID field: upserts will fail.`;
    },
  },
  async discover(ctx) {
    const response = await ctx.get(describePath(ctx.config));
    const fields = ((response.body as { fields?: Field[] } | undefined)?.fields ?? []).filter((f) => f.name !== "Id" && (f.createable || f.updateable));
    const key = externalId(ctx.config);
    const properties = Object.fromEntries(fields.map((f) => [f.name, { type: FIELD_TYPES[f.type ?? ""] ?? ["string", "null"], title: f.label ?? f.name }]));
    return [{ name: sobject(ctx.config), json_schema: { type: "object", properties, required: [key] }, primary_key: [key] }];
  },
  errorText: (response) => {
    const error = errorOf(response);
    return error ? `${error.errorCode ?? "ERROR"}: ${error.message ?? ""}` : undefined;
  },
  throttled: (response) => response.status === 403 && errorOf(response)?.errorCode === "REQUEST_LIMIT_EXCEEDED",
  rateLimitHeaders: ["sforce-limit-info"],
  // The allowance is per rolling 24 hours: retrying within the hour is pointless (the engine caps the wait).
  retryAfter: (response) => (errorOf(response)?.errorCode === "REQUEST_LIMIT_EXCEEDED" ? 3600 : undefined),
});
