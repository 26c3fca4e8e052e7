// What the Qdrant destination and source share: the server's URL as the reference's settings give it
// (api_url, or host, with or without a scheme), the `api-key` header, the error sentence of a failed
// answer ({"status": {"error": "..."}}), and a collection's vector parameters from
// GET /collections/{name} (one unnamed vector, or named ones, each with its size).
// Reference: api.qdrant.tech (REST API: collections, points).
import { ConnectorError } from "../shared/errors";
import type { Row } from "../types";

export const QDRANT_TITLE = "Qdrant";

/** The server's root: https:// when no scheme is given (Qdrant Cloud), no trailing slash. */
export function qdrantUrl(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new ConnectorError(`${field} is required: the URL of the Qdrant server (e.g. https://xyz.cloud.qdrant.io:6333).`);
  const text = value.trim();
  const url = /^https?:\/\//i.test(text) ? text : `https://${text}`;
  try {
    new URL(url);
  } catch {
    throw new ConnectorError(`${field} "${text}" is not a URL.`);
  }
  return url.replace(/\/+$/, "");
}

/** Qdrant's own sentence out of an error body. */
export function qdrantError(body: unknown): string | undefined {
  const status = (body as { status?: unknown } | undefined)?.status;
  const error = typeof status === "object" && status !== null ? (status as { error?: unknown }).error : undefined;
  return typeof error === "string" && error ? error.slice(0, 300) : undefined;
}

/** A collection's vectors: the unnamed one's size, or each named vector's size. */
export type VectorParams = { kind: "single"; size: number | undefined } | { kind: "named"; sizes: Record<string, number | undefined> };

const sizeOf = (params: unknown) => {
  const size = (params as { size?: unknown } | undefined)?.size;
  return typeof size === "number" && Number.isInteger(size) && size > 0 ? size : undefined;
};

/** The vector parameters of a GET /collections/{name} answer's result. */
export function vectorParams(result: unknown): VectorParams {
  const vectors = (result as { config?: { params?: { vectors?: unknown } } } | undefined)?.config?.params?.vectors;
  if (vectors && typeof vectors === "object" && !("size" in vectors)) {
    return { kind: "named", sizes: Object.fromEntries(Object.entries(vectors as Row).map(([name, p]) => [name, sizeOf(p)])) };
  }
  return { kind: "single", size: sizeOf(vectors) };
}

/** "4 dimensions" or "named vectors text (384), image (512)". */
export function describeParams(params: VectorParams): string {
  if (params.kind === "single") return params.size ? `vectors of ${params.size} dimensions` : "vectors of unknown size";
  return `named vectors ${Object.entries(params.sizes).map(([n, s]) => `${n} (${s ?? "?"})`).join(", ")}`;
}
