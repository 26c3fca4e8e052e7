// Pinecone destination: each namespace of the index is a stream (the default one as __default__, as
// the reference names it); a record is a vector (id, value, meta_data) upserted with
// POST /vectors/upsert on the index's host, whose upsertedCount is checked against what was sent;
// mirror mode's deletes go to POST /vectors/delete. Discovery reads the index's dimension from the
// control plane; a vector of another length fails its record before sending. Metadata is an object
// (or its JSON text, or the reference's "Key: value" lines); other mapped fields join it; Pinecone
// metadata holds text, numbers, booleans and lists of text, at most 40 KB per vector. A request
// carries at most 1,000 vectors and 2 MB (Pinecone's limits); one Pinecone refuses whole is bisected
// by the engine. Reference: docs.pinecone.io/reference/api (upsert, delete, describe_index_stats,
// describe_index; limits).
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { exactJson, JsonNumber } from "../shared/values";
import { defineRestDestination } from "../rest-kit/define";
import type { RecordResult, RestContext } from "../rest-kit/types";
import { dimensionOf, idText, vectorField, vectorOf } from "../vectors/values";
import { API_VERSION, DEFAULT_NAMESPACE, describeIndex, INTERACTIVE_ATTEMPTS, pineconeError, pineconeSettings, pineconeSpecification, regionNote, requestNamespace, type PineconeIndex } from "./api";

const MAX_METADATA_BYTES = 40 * 1024;
const MAX_ID_LENGTH = 512;
/** Fields of a record that are not its metadata. */
const VECTOR_FIELDS = new Set(["id", "value", "meta_data"]);
/** Where the wrapper hands the described index to the kit's hooks. */
const INDEX = "__pinecone_index";

/** The reference's metadata text: "Key: value" pairs, each value running to the next key or the end. */
export function metadataLines(text: string): Row {
  const out: Row = {};
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][\w]*):\s*(.*)$/.exec(line);
    if (m) {
      current = m[1];
      out[current] = m[2].trim();
    } else if (current) {
      out[current] = `${String(out[current])}\n${line}`.trim();
    }
  }
  return out;
}

function metadataOf(value: unknown): Row {
  if (value === null || value === undefined || value === "") return {};
  if (typeof value === "object" && !Array.isArray(value)) return { ...(value as Row) };
  if (typeof value === "string") {
    try {
      const parsed = JSON.parse(value) as unknown;
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Row;
    } catch {
      // Not JSON: the reference's "Key: value" lines.
    }
    return metadataLines(value);
  }
  throw new ConnectorError(`Column "meta_data" must hold an object, its JSON text or "Key: value" lines, not ${JSON.stringify(value)}.`);
}

/** Metadata Pinecone takes: nulls left out; anything but text, numbers, booleans and lists of text fails the record. */
function checkedMetadata(record: WriteRecord): Row {
  const metadata = metadataOf(record.payload.meta_data);
  for (const [key, value] of Object.entries(record.payload)) if (!VECTOR_FIELDS.has(key)) metadata[key] = value;
  const out: Row = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null || value === undefined) continue;
    const ok = value instanceof JsonNumber || ["string", "number", "boolean"].includes(typeof value) || (Array.isArray(value) && value.every((v) => typeof v === "string"));
    if (!ok) throw new ConnectorError(`Metadata field "${key}" holds ${exactJson(value).slice(0, 60)}; Pinecone metadata takes text, numbers, booleans and lists of text.`);
    out[key] = value;
  }
  const size = Buffer.byteLength(exactJson(out));
  if (size > MAX_METADATA_BYTES) throw new ConnectorError(`The metadata is ${size} bytes as JSON; Pinecone takes at most 40 KB per vector.`);
  return out;
}

function vectorItem(record: WriteRecord, ctx: RestContext): unknown {
  const id = idText(record.payload.id, "id");
  if (id.length > MAX_ID_LENGTH) throw new ConnectorError(`Column "id" is ${id.length} characters long; Pinecone ids have at most ${MAX_ID_LENGTH}.`);
  const metadata = checkedMetadata(record);
  return { id, values: vectorOf(record.payload.value, "value", dimensionOf(ctx.stream, "value")), ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
}

const indexOf = (config: Row) => config[INDEX] as PineconeIndex;

const kit = defineRestDestination({
  definition: {
    name: "PineconeDB",
    title: "Pinecone",
    category: "Database",
    icon: "/icons/pinecone.svg",
    documentationUrl: "https://docs.pinecone.io/reference/api/introduction",
    connectionSpecification: pineconeSpecification(false),
    secretTargetFields: ["control_plane_url"],
  },
  // The wrapper below sets base_url to the index's host before every call.
  baseUrl: (config) => indexOf(config).url,
  auth: { kind: "header", header: "Api-Key", field: "api_key" },
  headers: { "X-Pinecone-API-Version": API_VERSION },
  limits: { maxRecords: 1000, maxBytes: 2 * 1024 * 1024 },
  // Pinecone's serverless data plane takes 100 upsert (and 100 delete) requests per second per namespace; beyond, 429.
  rate: { limit: 100, unit: "second", concurrency: 4 },
  writes: {
    upsert: {
      item: vectorItem,
      request: (items, ctx) => ({ method: "POST", path: "/vectors/upsert", body: { vectors: items, namespace: requestNamespace(ctx.stream.name) } }),
      results: (response, items) => {
        const count = (response.body as { upsertedCount?: unknown } | undefined)?.upsertedCount;
        if (count === items.length) return items.map((): RecordResult => ({ ok: true, detail: { upsertedCount: count } }));
        return items.map((): RecordResult => ({ ok: false, error: `Pinecone upserted ${String(count)} of the request's ${items.length} vectors`, retryable: true }));
      },
    },
    delete: {
      item: (record) => idText(record.payload.id, "id"),
      request: (items, ctx) => ({ method: "POST", path: "/vectors/delete", body: { ids: items, namespace: requestNamespace(ctx.stream.name) } }),
    },
  },
  check: {
    request: () => ({ method: "POST", path: "/describe_index_stats", body: {} }),
    describe: (response, config) => {
      const index = indexOf(config);
      const total = (response.body as { totalVectorCount?: unknown } | undefined)?.totalVectorCount;
      const dims = index.dimension ? `${index.dimension} dimensions` : "dimension unknown";
      return `Connected to Pinecone index "${index.name}" (${dims}${typeof total === "number" ? `, ${total} vector${total === 1 ? "" : "s"}` : ""}).${regionNote(pineconeSettings(config), index)}`;
    },
  },
  async discover(ctx) {
    const index = indexOf(ctx.config);
    const stats = (await ctx.send({ method: "POST", path: "/describe_index_stats", body: {} })).body as { namespaces?: Record<string, unknown> } | undefined;
    const names = new Set([DEFAULT_NAMESPACE, ...Object.keys(stats?.namespaces ?? {}).map((n) => (n === "" ? DEFAULT_NAMESPACE : n))]);
    return [...names].map((name) => ({
      name,
      json_schema: {
        type: "object",
        description: `Vectors of namespace ${name}${index.dimension ? ` (${index.dimension} dimensions)` : ""}. Fields besides id, value and meta_data join the metadata.`,
        required: ["id", "value"],
        additionalProperties: true,
        properties: {
          id: { type: "string", description: "The vector's id (at most 512 characters)." },
          value: vectorField(index.dimension, "The vector (an embedding column)."),
          meta_data: { type: ["object", "string", "null"], description: 'Metadata: an object, its JSON text, or "Key: value" lines.' },
        },
      },
      primary_key: ["id"],
    }));
  },
  errorText: (response) => pineconeError(response.body),
});

const definition = { ...kit.definition, secretTargetFields: ["control_plane_url"] };
const RETRYABLE = /^(http_(408|429|5\d\d)|timeout|network)$/;

/** The configuration with the index described (its host as base_url), or the ConnectorError why not. */
async function described(config: Row, signal?: AbortSignal, attempts?: number): Promise<Row> {
  const index = await describeIndex({ ...pineconeSettings(config), attempts }, signal);
  if (!index.ready) throw new ConnectorError(`Pinecone index "${index.name}" is not ready yet.`, "http_503");
  return { ...config, base_url: index.url, [INDEX]: index };
}

const scrubbed = (config: Row, err: unknown) => new ConnectorError(redact(errorMessage(err), secretValues(config, definition)), (err as { code?: string }).code);

export const pineconeDestination: DestinationConnector = {
  definition,
  async check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
    return safeCheck(definition, config, async () => kit.check(await described(config, signal, INTERACTIVE_ATTEMPTS)));
  },
  async discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
    try {
      return await kit.discover(await described(config, signal, INTERACTIVE_ATTEMPTS));
    } catch (err) {
      throw scrubbed(config, err);
    }
  },
  async write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
    let full: Row;
    try {
      full = await described(config, options.signal);
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      const error = scrubbed(config, err).message;
      const retryable = RETRYABLE.test(err.code ?? "");
      return records.map((r) => ({ key: r.key, ok: false, error, retryable }));
    }
    return kit.write(full, records, options);
  },
};
