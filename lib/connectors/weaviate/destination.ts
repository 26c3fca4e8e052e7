// Weaviate destination: each collection (class) is a stream; a record is an object (id, vector,
// properties) written with POST /v1/batch/objects, whose answer carries each object's own result, so
// only the objects Weaviate refused fail. Writing an object with an id it already has replaces it
// (an upsert). Mirror mode's deletes go through DELETE /v1/batch/objects, matching the ids, with
// verbose output naming each deleted object. Weaviate objects need UUID ids: a UUID goes as it is,
// any other id is turned into one the way the reference did (SHA-1 of the id's text in UUID form), so
// objects written by the reference are the ones updated here. The vector comes from a column;
// discovery reads one stored object's vector for the collection's length, and a record whose vector
// differs fails before sending. 100 objects per request, as Weaviate's clients batch. Settings are
// the reference's (api_url, api_key as a Bearer token). Reference: weaviate.io/developers/weaviate/api/rest
// (batch objects create and delete, schema, objects list).
import { createHash } from "node:crypto";
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { defineRestDestination } from "../rest-kit/define";
import { secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext } from "../rest-kit/types";
import { dimensionOf, idText, objectOf, vectorField, vectorOf } from "../vectors/values";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Fields of a record that are not its properties. */
const OBJECT_FIELDS = new Set(["id", "vector", "properties"]);

export const weaviateSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Weaviate",
  type: "object",
  required: ["api_url", "api_key"],
  properties: {
    api_url: { type: "string", title: "API Url", description: "The Weaviate instance's URL, e.g. https://my-cluster.weaviate.cloud (https:// when no scheme is given).", order: 0 },
    api_key: secretField("API Key", "A Weaviate API key with write access, sent as a Bearer token.", 1),
    timeout: { type: "integer", title: "Timeout (seconds)", description: "How long to wait for each response.", minimum: 1, maximum: 300, default: 30, order: 2 },
  },
};

/** The instance's root: https:// when no scheme is given, no trailing slash. */
export function weaviateUrl(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw new ConnectorError("API Url is required: the URL of the Weaviate instance.");
  const text = value.trim();
  const url = /^https?:\/\//i.test(text) ? text : `https://${text}`;
  try {
    new URL(url);
  } catch {
    throw new ConnectorError(`API Url "${text}" is not a URL.`);
  }
  return url.replace(/\/+$/, "");
}

/** The object's UUID: the id itself when it is one, else SHA-1 of its text laid out as a UUID. */
export function objectId(value: unknown): string {
  const text = idText(value, "id");
  if (UUID.test(text)) return text.toLowerCase();
  const h = createHash("sha1").update(text).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function weaviateObject(record: WriteRecord, ctx: RestContext): unknown {
  const properties: Row = { ...(objectOf(record.payload.properties, "properties") ?? {}) };
  for (const [key, value] of Object.entries(record.payload)) if (!OBJECT_FIELDS.has(key)) properties[key] = value;
  return { class: ctx.stream.name, id: objectId(record.payload.id), vector: vectorOf(record.payload.vector, "vector", dimensionOf(ctx.stream, "vector")), properties };
}

/** Weaviate's sentence out of an error list ({"error": [{"message"}]}). */
function messages(errors: unknown): string | undefined {
  const list = (errors as { error?: { message?: unknown }[] } | undefined)?.error;
  const text = Array.isArray(list) ? list.map((e) => e?.message).filter((m): m is string => typeof m === "string").join("; ") : undefined;
  return text ? text.slice(0, 500) : undefined;
}

interface BatchObject {
  id?: string;
  result?: { status?: string; errors?: unknown };
}

/** A property's field schema from its Weaviate data type. */
function propertyType(dataType: unknown): JsonSchema {
  const t = Array.isArray(dataType) ? String(dataType[0]) : "";
  if (t.endsWith("[]")) return { type: ["array", "null"], items: propertyType([t.slice(0, -2)]) };
  switch (t) {
    case "int":
      return { type: ["integer", "null"] };
    case "number":
      return { type: ["number", "null"] };
    case "boolean":
      return { type: ["boolean", "null"] };
    case "text":
    case "string":
    case "date":
    case "uuid":
      return { type: ["string", "null"] };
    default:
      return { type: ["object", "string", "null"] };
  }
}

const inner = defineRestDestination({
  definition: {
    name: "Weaviate",
    title: "Weaviate",
    category: "Database",
    icon: "/icons/weaviate.svg",
    documentationUrl: "https://weaviate.io/developers/weaviate/api/rest",
    connectionSpecification: weaviateSpecification,
    secretTargetFields: ["api_url"],
  },
  settings: (config) => ({ ...config, base_url: weaviateUrl(config.api_url) }),
  baseUrl: (config) => weaviateUrl(config.api_url),
  auth: { kind: "bearer", field: "api_key" },
  limits: { maxRecords: 100, maxBytes: 10 * 1024 * 1024 },
  // The reference's published catalogue rate for this connector; Weaviate itself sets none.
  rate: { limit: 60, unit: "minute", concurrency: 10 },
  writes: {
    upsert: {
      item: weaviateObject,
      request: (items) => ({ method: "POST", path: "/v1/batch/objects", body: { objects: items } }),
      results: (response, items) => {
        const answers = response.body;
        if (!Array.isArray(answers)) return items.map((): RecordResult => ({ ok: false, error: "the batch answer is not a list of objects", retryable: true }));
        return (answers as BatchObject[]).map((a): RecordResult => {
          const error = messages(a?.result?.errors);
          if (error || (a?.result?.status !== undefined && a.result.status !== "SUCCESS")) return { ok: false, error: error ?? `status ${a?.result?.status}`, detail: a?.result };
          return { ok: true, detail: { id: a?.id, result: a?.result ?? {} } };
        });
      },
    },
    delete: {
      item: (record) => objectId(record.payload.id),
      request: (items, ctx) => ({
        method: "DELETE",
        path: "/v1/batch/objects",
        body: { match: { class: ctx.stream.name, where: { path: ["id"], operator: "ContainsAny", valueTextArray: items } }, output: "verbose" },
      }),
      results: (response, items) => {
        const objects = ((response.body as { results?: { objects?: { id?: string; status?: string; errors?: unknown }[] } } | undefined)?.results?.objects ?? []) as {
          id?: string;
          status?: string;
          errors?: unknown;
        }[];
        const byId = new Map(objects.map((o) => [String(o.id), o]));
        // An id the match did not find is already gone: what mirror mode wants.
        return items.map((id): RecordResult => {
          const o = byId.get(String(id));
          if (!o || o.status === "SUCCESS") return { ok: true, detail: o ?? { id, note: "no such object" } };
          return { ok: false, error: messages(o.errors) ?? `status ${o.status}`, detail: o };
        });
      },
    },
  },
  check: {
    request: () => ({ method: "GET", path: "/v1/schema" }),
    describe: (response) => {
      const n = (response.body as { classes?: unknown[] } | undefined)?.classes?.length ?? 0;
      return `Connected to Weaviate: ${n} collection${n === 1 ? "" : "s"}.`;
    },
  },
  async discover(ctx) {
    const schema = (await ctx.get("/v1/schema")).body as { classes?: { class?: unknown; properties?: { name?: unknown; dataType?: unknown }[] }[] } | undefined;
    const streams = [];
    for (const c of schema?.classes ?? []) {
      if (typeof c.class !== "string") continue;
      const sample = (await ctx.get("/v1/objects", { class: c.class, limit: "1", include: "vector" })).body as { objects?: { vector?: unknown }[] } | undefined;
      const stored = sample?.objects?.[0]?.vector;
      const dimension = Array.isArray(stored) && stored.length > 0 ? stored.length : undefined;
      const fields = Object.fromEntries((c.properties ?? []).filter((p) => typeof p.name === "string").map((p) => [p.name as string, propertyType(p.dataType)]));
      streams.push({
        name: c.class,
        json_schema: {
          type: "object",
          description: `Objects of ${c.class}${dimension ? ` (vectors of ${dimension} dimensions)` : " (no object yet: the first vector sets the length)"}. Fields besides id, vector and properties are properties.`,
          required: ["id", "vector"],
          additionalProperties: true,
          properties: {
            id: { type: ["string", "integer"], description: "A UUID, or any id (turned into a UUID)." },
            vector: vectorField(dimension, "The object's vector (an embedding column)."),
            properties: { type: ["object", "string", "null"], properties: fields },
            ...fields,
          },
        },
        primary_key: ["id"],
      });
    }
    return streams;
  },
  errorText: (response) => messages(response.body),
});

export const weaviateDestination = { ...inner, definition: { ...inner.definition, secretTargetFields: ["api_url"] } };
