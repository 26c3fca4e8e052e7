// What the Pinecone destination and source share: the settings (the reference's api_key, region,
// index_name, and the source's namespace), the control plane's describe index (GET /indexes/{name}
// on https://api.pinecone.io), which gives the index's own host and its dimension, and the data
// plane's requests to that host with the Api-Key and X-Pinecone-API-Version headers. The host is
// kept a few minutes per credential and index (bounded), so a run asks the control plane once.
// Reference: docs.pinecone.io/reference/api (control plane: describe_index; data plane: upsert,
// delete, query, list, fetch, describe_index_stats; errors and rate limits).
import { createHash } from "node:crypto";
import { setBounded } from "../shared/bounded-cache";
import { optionalString, secondsToMs } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { secretField } from "../rest-kit/fields";
import { callJson } from "../vectors/source-api";
import type { JsonSchema, Row } from "../types";

export const CONTROL_PLANE = "https://api.pinecone.io";
export const API_VERSION = "2025-01";
/** Attempts of a request a person waits for (a sync's read takes callJson's default). */
export const INTERACTIVE_ATTEMPTS = 2;
/** The reference's name for the default namespace ("" in Pinecone's requests). */
export const DEFAULT_NAMESPACE = "__default__";
const HOST_TTL_MS = 5 * 60_000;

/** The reference's fields (namespace is the source's), then ours: the control plane's URL and a timeout. */
export function pineconeSpecification(withNamespace: boolean): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Pinecone DB",
    type: "object",
    required: ["api_key", "region", "index_name", ...(withNamespace ? ["namespace"] : [])],
    properties: {
      api_key: secretField("API Key", "A Pinecone API key of the project that holds the index.", 0),
      region: { type: "string", title: "Region", description: "Where the index runs (e.g. us-east-1); the check says when the index reports another.", order: 1 },
      index_name: { type: "string", title: "Index Name", description: "The index to use; its host and dimension are read from Pinecone.", minLength: 1, order: 2 },
      ...(withNamespace ? { namespace: { type: "string", title: "Namespace", description: `The namespace models read (${DEFAULT_NAMESPACE} for the default one).`, order: 3 } } : {}),
      control_plane_url: {
        type: "string",
        title: "Control plane URL (advanced)",
        description: `Where the index is described. Default ${CONTROL_PLANE}; change it only for a proxy or a test server.`,
        format: "uri",
        pattern: "^https?://",
        default: CONTROL_PLANE,
        order: 4,
      },
      timeout: { type: "integer", title: "Timeout (seconds)", description: "How long to wait for each response.", minimum: 1, maximum: 300, default: 30, order: 5 },
    },
  };
}

export interface PineconeSettings {
  apiKey: string;
  region?: string;
  indexName: string;
  controlPlane: string;
  timeoutMs: number;
  /** Fewer attempts where a person waits (check, discover, preview). */
  attempts?: number;
}

export function pineconeSettings(config: Row): PineconeSettings {
  const apiKey = optionalString(config, "api_key");
  const indexName = optionalString(config, "index_name");
  if (!apiKey) throw new ConnectorError("api_key is required.");
  if (!indexName) throw new ConnectorError("index_name is required.");
  const controlPlane = (optionalString(config, "control_plane_url") ?? CONTROL_PLANE).replace(/\/+$/, "");
  return { apiKey, region: optionalString(config, "region"), indexName, controlPlane, timeoutMs: secondsToMs(config, "timeout", 30) };
}

/** Pinecone's sentence out of an error body (control plane {"error": {"message"}}, data plane {"message"}). */
export function pineconeError(body: unknown): string | undefined {
  const b = body as { error?: { message?: unknown } | unknown; message?: unknown } | undefined;
  const message = typeof b?.error === "object" && b.error !== null ? (b.error as { message?: unknown }).message : b?.message;
  return typeof message === "string" && message ? message.slice(0, 300) : undefined;
}

export const pineconeHeaders = (s: PineconeSettings) => ({ "Api-Key": s.apiKey, "X-Pinecone-API-Version": API_VERSION });

export interface PineconeIndex {
  name: string;
  /** The data plane's root URL. */
  url: string;
  dimension?: number;
  metric?: string;
  region?: string;
  ready: boolean;
}

const indexes = new Map<string, { index: PineconeIndex; until: number }>();

/**
 * The index as the control plane describes it. Its host comes without a scheme: the data plane is
 * reached with the control plane's scheme (https, or http for a local test server).
 */
export async function describeIndex(s: PineconeSettings, signal?: AbortSignal): Promise<PineconeIndex> {
  const key = createHash("sha256").update(`${s.controlPlane}\u0000${s.apiKey}\u0000${s.indexName}`).digest("hex");
  const kept = indexes.get(key);
  if (kept && kept.until > Date.now()) return kept.index;
  const body = (await callJson({
    url: `${s.controlPlane}/indexes/${encodeURIComponent(s.indexName)}`,
    method: "GET",
    headers: pineconeHeaders(s),
    secretHeaders: ["api-key"],
    timeoutMs: s.timeoutMs,
    signal,
    errorText: pineconeError,
    vendor: "Pinecone",
    attempts: s.attempts,
  })) as { name?: unknown; host?: unknown; dimension?: unknown; metric?: unknown; spec?: { serverless?: { region?: unknown }; pod?: { environment?: unknown } }; status?: { ready?: unknown } };
  if (typeof body?.host !== "string" || body.host === "") throw new ConnectorError(`Pinecone described index "${s.indexName}" without a host.`);
  const scheme = new URL(s.controlPlane).protocol;
  const url = (/^https?:\/\//i.test(body.host) ? body.host : `${scheme}//${body.host}`).replace(/\/+$/, "");
  const region = body.spec?.serverless?.region ?? body.spec?.pod?.environment;
  const index: PineconeIndex = {
    name: s.indexName,
    url,
    dimension: typeof body.dimension === "number" && body.dimension > 0 ? body.dimension : undefined,
    metric: typeof body.metric === "string" ? body.metric : undefined,
    region: typeof region === "string" ? region : undefined,
    ready: body.status?.ready !== false,
  };
  setBounded(indexes, key, { index, until: Date.now() + HOST_TTL_MS });
  return index;
}

/** A data plane request for the source (retries included). */
export function dataPlane(s: PineconeSettings, index: PineconeIndex, method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
  return callJson({ url: `${index.url}${path}`, method, headers: pineconeHeaders(s), secretHeaders: ["api-key"], body, timeoutMs: s.timeoutMs, signal, errorText: pineconeError, vendor: "Pinecone", attempts: s.attempts });
}

/** The namespace as Pinecone's requests name it: the reference's __default__ is "". */
export const requestNamespace = (name: string | undefined) => (name === undefined || name === DEFAULT_NAMESPACE ? "" : name);

/** A sentence about the configured region when the index reports another. */
export function regionNote(s: PineconeSettings, index: PineconeIndex): string {
  if (!s.region || !index.region) return "";
  const a = s.region.toLowerCase();
  const b = index.region.toLowerCase();
  return a.startsWith(b) || b.startsWith(a) ? "" : ` Note: the index runs in ${index.region}, not ${s.region} as the settings say.`;
}
