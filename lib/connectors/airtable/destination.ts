// Airtable (Web API v0): records are upserted with "Update multiple records" (PATCH) and
// performUpsert.fieldsToMergeOn, or created with "Create records" (POST) in insert mode, 10 records
// per request, 5 requests per second per base, with a personal access token. Airtable refuses a
// request whole (422 with the field at fault), so the engine's bisection pins the error on its
// record. A throttled base answers 429 without Retry-After and stays closed for 30 seconds, which
// is the wait reported. Reference: airtable.com/developers/web/api (update multiple records,
// create records, get base schema, rate limits, errors).
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RestContext, RestResponse } from "../rest-kit/types";

const BASE_URL = "https://api.airtable.com";
/** Airtable documents a 30-second wait after a 429. */
const THROTTLE_WAIT_SECONDS = 30;
/** Field types Airtable computes itself: never written. */
const COMPUTED = new Set(["formula", "rollup", "count", "lookup", "multipleLookupValues", "createdTime", "lastModifiedTime", "autoNumber", "createdBy", "lastModifiedBy", "button"]);

const baseId = (config: Row) => {
  const value = typeof config.base_id === "string" ? config.base_id.trim() : "";
  if (!/^app[A-Za-z0-9]+$/.test(value)) throw new ConnectorError(`"${value}" is not an Airtable base id (app…).`);
  return value;
};

function tablePath(ctx: RestContext): string {
  return `/v0/${baseId(ctx.config)}/${encodeURIComponent(ctx.stream.name)}`;
}

/** The fields records are matched on: the stream's key (the table's primary field, or the configured ones). */
function mergeFields(ctx: RestContext): string[] {
  const fields = ctx.stream.primary_key?.filter((f) => f !== "") ?? [];
  if (fields.length === 0) throw new ConnectorError(`The stream ${ctx.stream.name} names no field to match records on; discover it again.`);
  return fields;
}

const typecast = (config: Row) => config.typecast === true;

interface AirtableField {
  id: string;
  name: string;
  type: string;
  description?: string;
  options?: { choices?: { name: string }[] };
}
interface AirtableTable {
  id: string;
  name: string;
  primaryFieldId: string;
  fields: AirtableField[];
}

function fieldSchema(field: AirtableField): JsonSchema {
  const described = { title: field.name, ...(field.description ? { description: field.description } : {}) };
  switch (field.type) {
    case "number":
    case "currency":
    case "percent":
    case "rating":
    case "duration":
      return { type: ["number", "null"], ...described };
    case "checkbox":
      return { type: ["boolean", "null"], ...described };
    case "multipleSelects":
    case "multipleRecordLinks":
      return { type: ["array", "null"], items: { type: "string" }, ...described };
    case "singleSelect":
      return { type: ["string", "null"], ...described, ...(field.options?.choices ? { enum: [...field.options.choices.map((c) => c.name), null] } : {}) };
    default:
      return { type: ["string", "null"], ...described };
  }
}

function configuredMergeFields(config: Row): string[] {
  return Array.isArray(config.merge_fields) ? config.merge_fields.filter((f): f is string => typeof f === "string" && f !== "") : [];
}

export const airtableDestination = defineRestDestination({
  definition: {
    name: "Airtable",
    title: "Airtable",
    category: "Productivity Tools",
    icon: "/icons/airtable.svg",
    documentationUrl: "https://airtable.com/developers/web/api/update-multiple-records",
    connectionSpecification: restSpecification(
      "Airtable",
      BASE_URL,
      {
        api_key: secretField("Personal access token", "A personal access token with data.records:write and schema.bases:read on this base."),
        base_id: { type: "string", title: "Base ID", description: "The base's id, app… (in the base's URL).", pattern: "^app[A-Za-z0-9]+$", order: 1 },
        merge_fields: {
          type: "array",
          title: "Fields to merge on",
          description: "The fields whose values identify a record (performUpsert.fieldsToMergeOn). Empty: each table's primary field.",
          items: { type: "string", minLength: 1 },
          maxItems: 3,
          order: 2,
        },
        typecast: {
          type: "boolean",
          title: "Convert values",
          description: "Let Airtable convert text to the field's type (typecast), e.g. create a missing select option.",
          default: false,
          order: 3,
        },
      },
      ["api_key", "base_id"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "api_key" },
  limits: { maxRecords: 10 },
  rate: { limit: 5, unit: "second", concurrency: 1 },
  writes: {
    upsert: {
      item: (record) => ({ fields: record.payload }),
      request: (items, ctx) => ({
        method: "PATCH",
        path: tablePath(ctx),
        body: { performUpsert: { fieldsToMergeOn: items.length > 0 ? mergeFields(ctx) : [] }, records: items, typecast: typecast(ctx.config) },
      }),
    },
    insert: {
      item: (record) => ({ fields: record.payload }),
      request: (items, ctx) => ({ method: "POST", path: tablePath(ctx), body: { records: items, typecast: typecast(ctx.config) } }),
    },
  },
  check: {
    request: (config) => ({ method: "GET", path: `/v0/meta/bases/${baseId(config)}/tables` }),
    describe: (response) => {
      const tables = (response.body as { tables?: unknown[] } | undefined)?.tables ?? [];
      return `Connected to Airtable; the base has ${tables.length} table${tables.length === 1 ? "" : "s"}.`;
    },
  },
  async discover(ctx) {
    const response = await ctx.get(`/v0/meta/bases/${baseId(ctx.config)}/tables`);
    const tables = (response.body as { tables?: AirtableTable[] } | undefined)?.tables ?? [];
    const configured = configuredMergeFields(ctx.config);
    return tables.map((table) => {
      const writable = table.fields.filter((f) => !COMPUTED.has(f.type));
      const primary = table.fields.find((f) => f.id === table.primaryFieldId)?.name;
      const key = configured.length > 0 ? configured : primary ? [primary] : [];
      return {
        name: table.name,
        json_schema: { type: "object", properties: Object.fromEntries(writable.map((f) => [f.name, fieldSchema(f)])) },
        ...(key.length > 0 ? { primary_key: key } : {}),
      };
    });
  },
  errorText: (response: RestResponse) => {
    const body = response.body as { error?: string | { type?: string; message?: string }; errors?: { error?: string; message?: string }[] } | undefined;
    const error = body?.error ?? body?.errors?.[0];
    if (!error) return undefined;
    if (typeof error === "string") return error;
    const type = "type" in error ? error.type : (error as { error?: string }).error;
    return [type, error.message].filter(Boolean).join(": ");
  },
  retryAfter: (response) => (response.status === 429 ? THROTTLE_WAIT_SECONDS : undefined),
});
