// HubSpot CRM (v3 objects API): records are upserted by a unique property (`id_property`, email for
// contacts) with batch/upsert, created with batch/create (insert mode) or updated with batch/update
// (update mode), 100 per request, with a private app's access token. Each input carries an
// objectWriteTraceId (the record's key), so a 207 multi-status answer names the inputs that failed.
// Throttled answers carry no Retry-After but X-HubSpot-RateLimit-* headers: the wait is the
// interval they name. Reference: developers.hubspot.com/docs/api-reference (CRM objects, batch;
// error handling; usage guidelines).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { exactJson } from "../shared/values";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";

const BASE_URL = "https://api.hubapi.com";
const OBJECT_TYPE = /^[A-Za-z0-9_-]+$/;

const objectType = (config: Row) => {
  const value = typeof config.object_type === "string" && config.object_type !== "" ? config.object_type : "contacts";
  if (!OBJECT_TYPE.test(value)) throw new ConnectorError(`"${value}" is not a HubSpot object type (contacts, companies, deals, tickets or a custom object's id).`);
  return value;
};
const idProperty = (config: Row) => (typeof config.id_property === "string" && config.id_property !== "" ? config.id_property : "email");

/** HubSpot property values are strings, numbers or booleans; null clears a property ("" in the API). */
function propertyValue(value: unknown): unknown {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return exactJson(value);
  return value;
}

function properties(record: WriteRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record.payload).map(([k, v]) => [k, propertyValue(v)]));
}

function idValue(record: WriteRecord, ctx: RestContext): string {
  const name = idProperty(ctx.config);
  const value = record.payload[name];
  if (value === null || value === undefined || value === "") {
    throw new ConnectorError(`The record has no value for ${name}, the unique property HubSpot matches records on.`);
  }
  return String(value);
}

interface BatchError {
  message?: string;
  category?: string;
  context?: Record<string, unknown>;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/**
 * Per input: failed when an error names its objectWriteTraceId (or, for endpoints that report by
 * id, its id value), else ok, with its own result when the answer lists one.
 */
function batchResults(response: RestResponse, items: unknown[]): RecordResult[] | undefined {
  const body = response.body as { errors?: BatchError[]; results?: { objectWriteTraceId?: string; id?: string }[] } | undefined;
  if (response.status !== 207 || !body) return undefined;
  const failures = new Map<string, BatchError>();
  for (const error of body.errors ?? []) {
    for (const id of [...asList(error.context?.objectWriteTraceId), ...asList(error.context?.ids)]) failures.set(id, error);
  }
  const results = new Map((body.results ?? []).map((r) => [String(r.objectWriteTraceId ?? ""), r]));
  return items.map((item) => {
    const input = item as { objectWriteTraceId: string; id?: string };
    const error = failures.get(input.objectWriteTraceId) ?? (input.id !== undefined ? failures.get(input.id) : undefined);
    if (error) return { ok: false, error: error.message ?? error.category ?? "error", detail: error };
    return { ok: true, detail: results.get(input.objectWriteTraceId) };
  });
}

function batchEndpoint(operation: "upsert" | "create" | "update"): WriteEndpoint {
  return {
    item: (record, ctx) => {
      const trace = { objectWriteTraceId: record.key };
      if (operation === "create") return { properties: properties(record), ...trace };
      return { idProperty: idProperty(ctx.config), id: idValue(record, ctx), properties: properties(record), ...trace };
    },
    request: (items, ctx) => ({ method: "POST", path: `/crm/v3/objects/${objectType(ctx.config)}/batch/${operation}`, body: { inputs: items } }),
    results: (response, items) => batchResults(response, items),
  };
}

interface HubspotProperty {
  name: string;
  type?: string;
  label?: string;
  description?: string;
  hasUniqueValue?: boolean;
  calculated?: boolean;
  modificationMetadata?: { readOnlyValue?: boolean };
  options?: { value: string }[];
}

function propertySchema(p: HubspotProperty): JsonSchema {
  const described = { title: p.label ?? p.name, ...(p.description ? { description: p.description } : {}) };
  switch (p.type) {
    case "number":
      return { type: ["number", "string", "null"], ...described };
    case "bool":
      return { type: ["boolean", "string", "null"], ...described };
    case "date":
    case "datetime":
      return { type: ["string", "null"], ...described };
    case "enumeration":
      return { type: ["string", "null"], ...described, ...(p.options?.length ? { examples: p.options.slice(0, 20).map((o) => o.value) } : {}) };
    default:
      return { type: ["string", "null"], ...described };
  }
}

/** Rate limit wait from the headers: the interval of the limit hit (daily: an hour, then try again). */
function retryAfter(response: RestResponse): number | undefined {
  const policy = (response.body as { policyName?: string } | undefined)?.policyName;
  if (policy === "DAILY") return 3600;
  const interval = Number(response.headers["x-hubspot-ratelimit-interval-milliseconds"]);
  return Number.isFinite(interval) && interval > 0 ? interval / 1000 : 1;
}

export const hubspotDestination = defineRestDestination({
  definition: {
    name: "Hubspot",
    title: "HubSpot",
    category: "CRM",
    icon: "/icons/hubspot.svg",
    documentationUrl: "https://developers.hubspot.com/docs/api-reference/crm-contacts-v3/guide",
    connectionSpecification: restSpecification(
      "HubSpot",
      BASE_URL,
      {
        access_token: secretField("Private app access token", "The access token of a HubSpot private app with the object's read and write scopes (e.g. crm.objects.contacts.write)."),
        object_type: {
          type: "string",
          title: "Object type",
          description: "The CRM object records are written to: contacts, companies, deals, tickets, or a custom object's id (2-…).",
          default: "contacts",
          pattern: "^[A-Za-z0-9_-]+$",
          order: 1,
        },
        id_property: {
          type: "string",
          title: "Unique property",
          description: "The property HubSpot matches records on (idProperty): email for contacts, or a custom property with unique values.",
          default: "email",
          order: 2,
        },
      },
      ["access_token"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "access_token" },
  limits: { maxRecords: 100 },
  // Private apps: 100 requests per 10 seconds (Free/Starter); 190 on Professional and Enterprise.
  rate: { limit: 10, unit: "second", concurrency: 2 },
  writes: { upsert: batchEndpoint("upsert"), insert: batchEndpoint("create"), update: batchEndpoint("update") },
  check: {
    request: (config) => ({ method: "GET", path: `/crm/v3/objects/${objectType(config)}`, query: { limit: "1" } }),
    describe: (_response, config) => `Connected to HubSpot; the token can read ${objectType(config)}.`,
  },
  async discover(ctx) {
    const type = objectType(ctx.config);
    const response = await ctx.get(`/crm/v3/properties/${type}`, { archived: "false" });
    const list = ((response.body as { results?: HubspotProperty[] } | undefined)?.results ?? []).filter(
      (p) => !p.calculated && !p.modificationMetadata?.readOnlyValue,
    );
    const id = idProperty(ctx.config);
    return [
      {
        name: type,
        json_schema: { type: "object", properties: Object.fromEntries(list.map((p) => [p.name, propertySchema(p)])), required: [id] },
        primary_key: [id],
      },
    ];
  },
  errorText: (response) => {
    const body = response.body as { message?: string; category?: string } | undefined;
    return body?.message ? `${body.message}${body.category ? ` (${body.category})` : ""}` : undefined;
  },
  rateLimitHeaders: ["x-hubspot-ratelimit-interval-milliseconds", "x-hubspot-ratelimit-max", "x-hubspot-ratelimit-remaining"],
  retryAfter,
});
