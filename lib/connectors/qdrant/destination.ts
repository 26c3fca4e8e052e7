// Qdrant destination: each collection is a stream; a record is a point (id, vector, payload) upserted
// with PUT /collections/{name}/points?wait=true, so the answer says whether it was applied; mirror
// mode's deletes go to POST /collections/{name}/points/delete?wait=true. Discovery reads each
// collection's vector size (GET /collections/{name}); a vector of another length fails its record
// before anything is sent. Ids are what Qdrant takes: unsigned integers or UUIDs. A request carries at
// most 1,000 points and stays under Qdrant's default 32 MB request limit; a request Qdrant refuses as
// a whole is bisected by the engine, so the bad point fails alone. Settings are the reference's
// (api_url, api_key). Reference: api.qdrant.tech (Points: upsert, delete; Collections: list, get).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { JsonNumber, markedNumber } from "../shared/values";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { defineRestDestination } from "../rest-kit/define";
import { secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse } from "../rest-kit/types";
import { dimensionOf, objectOf, vectorField, vectorOf } from "../vectors/values";
import { describeParams, qdrantError, qdrantUrl, QDRANT_TITLE, vectorParams, type VectorParams } from "./api";

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const U64_MAX = 18446744073709551615n;
/** Fields of a record that are not its payload. */
const POINT_FIELDS = new Set(["id", "vector", "payload"]);

export const qdrantDestinationSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Qdrant",
  type: "object",
  required: ["api_url", "api_key"],
  properties: {
    api_url: { type: "string", title: "API Url", description: "The Qdrant server's URL with its port, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:6333.", order: 0 },
    api_key: secretField("API Key", "A Qdrant API key with write access to the collections.", 1),
    timeout: { type: "integer", title: "Timeout (seconds)", description: "How long to wait for each response.", minimum: 1, maximum: 300, default: 30, order: 2 },
  },
};

/** The point id: an unsigned integer (to 2^64 - 1) or a UUID, else the record fails with a sentence. */
export function pointId(value: unknown): number | string | JsonNumber {
  const text = value instanceof JsonNumber ? value.text : typeof value === "string" ? (markedNumber(value) ?? value) : typeof value === "number" ? String(value) : undefined;
  if (text === undefined || text === "") throw new ConnectorError('Column "id" is empty: every Qdrant point needs an id.');
  if (UUID.test(text)) return text;
  if (/^\d+$/.test(text) && BigInt(text) <= U64_MAX) return Number.isSafeInteger(Number(text)) ? Number(text) : new JsonNumber(text);
  throw new ConnectorError(`Column "id" holds "${text.slice(0, 60)}", which Qdrant cannot take as a point id: ids are unsigned integers or UUIDs.`);
}

/** The record's vector (or named vectors), each checked against the size discovery recorded. */
function pointVector(value: unknown, ctx: RestContext): unknown {
  const schema = (ctx.stream.json_schema as { properties?: Record<string, JsonSchema> }).properties?.vector;
  const named = schema?.["x-named"] === true;
  if (!named) return vectorOf(value, "vector", dimensionOf(ctx.stream, "vector"));
  const vectors = objectOf(value, "vector");
  if (!vectors || Object.keys(vectors).length === 0) throw new ConnectorError('Column "vector" must hold the collection\'s named vectors as an object, e.g. {"text": [0.1, …]}.');
  const declared = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const out: Row = {};
  for (const [name, v] of Object.entries(vectors)) {
    if (!(name in declared)) throw new ConnectorError(`Column "vector" names the vector "${name}", which the collection does not have (it has ${Object.keys(declared).join(", ")}).`);
    const d = declared[name]["x-dimension"];
    out[name] = vectorOf(v, `vector.${name}`, typeof d === "number" ? d : undefined);
  }
  return out;
}

function point(record: WriteRecord, ctx: RestContext): unknown {
  const payload: Row = { ...(objectOf(record.payload.payload, "payload") ?? {}) };
  for (const [key, value] of Object.entries(record.payload)) if (!POINT_FIELDS.has(key)) payload[key] = value;
  return { id: pointId(record.payload.id), vector: pointVector(record.payload.vector, ctx), payload };
}

const collectionPath = (ctx: RestContext) => `/collections/${encodeURIComponent(ctx.stream.name)}`;

/** With wait=true Qdrant answers once the operation is applied: "completed" is the records' success. */
function operationResults(response: RestResponse, items: unknown[]): RecordResult[] {
  const status = (response.body as { result?: { status?: unknown } } | undefined)?.result?.status;
  const detail = (response.body as { result?: unknown } | undefined)?.result;
  if (status === "completed" || status === "acknowledged") return items.map(() => ({ ok: true, detail }));
  return items.map(() => ({ ok: false, error: `the operation ended as ${JSON.stringify(status)}`, retryable: true, detail }));
}

/** A payload field's schema from Qdrant's payload_schema data type. */
function payloadType(dataType: unknown): JsonSchema {
  switch (dataType) {
    case "integer":
      return { type: ["integer", "null"] };
    case "float":
      return { type: ["number", "null"] };
    case "bool":
      return { type: ["boolean", "null"] };
    case "geo":
      return { type: ["object", "null"], properties: { lon: { type: "number" }, lat: { type: "number" } } };
    default:
      return { type: ["string", "null"] };
  }
}

function vectorSchema(params: VectorParams): JsonSchema {
  if (params.kind === "single") return vectorField(params.size, "The point's vector (an embedding column).");
  return {
    type: ["object", "string"],
    "x-named": true,
    description: "The point's named vectors, as an object of arrays.",
    properties: Object.fromEntries(Object.entries(params.sizes).map(([name, size]) => [name, vectorField(size, `The "${name}" vector.`)])),
  };
}

const inner = defineRestDestination({
  definition: {
    name: "Qdrant",
    title: QDRANT_TITLE,
    category: "Database",
    icon: "/icons/qdrant.svg",
    documentationUrl: "https://api.qdrant.tech/api-reference",
    connectionSpecification: qdrantDestinationSpecification,
    secretTargetFields: ["api_url"],
  },
  settings: (config) => ({ ...config, base_url: qdrantUrl(config.api_url, "API Url") }),
  baseUrl: (config) => qdrantUrl(config.api_url, "API Url"),
  auth: { kind: "header", header: "api-key", field: "api_key" },
  limits: { maxRecords: 1000, maxBytes: 32 * 1024 * 1024 },
  // The reference's published catalogue rate for this connector; Qdrant itself sets none.
  rate: { limit: 60, unit: "minute", concurrency: 10 },
  writes: {
    upsert: {
      item: point,
      request: (items, ctx) => ({ method: "PUT", path: `${collectionPath(ctx)}/points`, query: { wait: "true" }, body: { points: items } }),
      results: operationResults,
    },
    delete: {
      item: (record) => pointId(record.payload.id),
      request: (items, ctx) => ({ method: "POST", path: `${collectionPath(ctx)}/points/delete`, query: { wait: "true" }, body: { points: items } }),
      results: operationResults,
    },
  },
  check: {
    request: () => ({ method: "GET", path: "/collections" }),
    describe: (response) => {
      const n = (response.body as { result?: { collections?: unknown[] } } | undefined)?.result?.collections?.length ?? 0;
      return `Connected to Qdrant: ${n} collection${n === 1 ? "" : "s"}.`;
    },
  },
  async discover(ctx) {
    const list = (await ctx.get("/collections")).body as { result?: { collections?: { name?: unknown }[] } } | undefined;
    const names = (list?.result?.collections ?? []).map((c) => c.name).filter((n): n is string => typeof n === "string");
    const streams = [];
    for (const name of names) {
      const result = ((await ctx.get(`/collections/${encodeURIComponent(name)}`)).body as { result?: unknown } | undefined)?.result;
      const params = vectorParams(result);
      const payloadSchema = ((result as { payload_schema?: Record<string, { data_type?: unknown }> } | undefined)?.payload_schema ?? {}) as Record<string, { data_type?: unknown }>;
      const fields = Object.fromEntries(Object.entries(payloadSchema).map(([field, s]) => [field, payloadType(s?.data_type)]));
      streams.push({
        name,
        json_schema: {
          type: "object",
          description: `Points of ${name}: ${describeParams(params)}. Fields besides id, vector and payload go into the payload.`,
          required: ["id", "vector"],
          additionalProperties: true,
          properties: {
            id: { type: ["integer", "string"], description: "An unsigned integer or a UUID." },
            vector: vectorSchema(params),
            payload: { type: ["object", "string", "null"], properties: fields },
            ...fields,
          },
        },
        primary_key: ["id"],
      });
    }
    return streams;
  },
  errorText: (response) => qdrantError(response.body),
});

export const qdrantDestination = { ...inner, definition: { ...inner.definition, secretTargetFields: ["api_url"] } };
