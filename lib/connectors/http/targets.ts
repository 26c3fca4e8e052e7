// Where each record of the HTTP destination goes: the method and URL of its kind of write (insert,
// update, delete; an upsert takes the connector's own), the URL rendered from the record's payload
// when it is a template. Unset fields fall back to `method` and `destination_url`, so configurations
// made before these fields existed send exactly as they did.
import type { Row, WriteAction } from "../types";
import { ConnectorError } from "../shared/errors";
import { renderTemplate } from "../shared/liquid";
import { scalarText } from "../shared/values";
import type { HttpMethod } from "@/lib/net/http";

export type WriteMethod = Exclude<HttpMethod, "OPTIONS" | "HEAD">;

export interface RequestTarget {
  method: WriteMethod;
  /** The URL as configured: plain, or a Liquid template over the payload. */
  url: string;
}

export type RequestTargets = Record<WriteAction, RequestTarget>;

const METHODS: readonly WriteMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function method(value: unknown, fallback: WriteMethod): WriteMethod {
  const upper = typeof value === "string" ? value.toUpperCase() : "";
  return (METHODS as readonly string[]).includes(upper) ? (upper as WriteMethod) : fallback;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** Every write action's target, from the configuration. */
export function requestTargets(config: Row, base: RequestTarget): RequestTargets {
  const of = (kind: "insert" | "update" | "delete"): RequestTarget => ({
    method: method(config[`${kind}_method`], base.method),
    url: text(config[`${kind}_url`]) ?? base.url,
  });
  return { upsert: base, insert: of("insert"), update: of("update"), delete: of("delete") };
}

/**
 * A payload value as one URL-encoded path or query piece. "." and ".." are refused: URLs treat them
 * (even percent-encoded) as a step up the path, which would send the request elsewhere.
 */
function urlPiece(key: string, value: unknown): string {
  if (value === null || value === undefined) return "";
  const raw = scalarText(value);
  if (raw === "." || raw === "..") throw new ConnectorError(`The value of "${key}" (${raw}) cannot be put in a URL: it would change the path.`);
  return encodeURIComponent(raw);
}

const isTemplate = (url: string) => url.includes("{{") || url.includes("{%");

/** The URL a record is sent to; throws ConnectorError when the template fails or yields no http(s) URL. */
export function renderUrl(target: RequestTarget, payload: Row): string {
  if (!isTemplate(target.url)) return target.url;
  const scope: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload)) scope[k] = urlPiece(k, v);
  const url = renderTemplate(target.url, scope).trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConnectorError(`The URL template gave "${url.slice(0, 200)}", which is not a URL.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConnectorError(`The URL template gave "${url.slice(0, 200)}"; only http and https URLs are allowed.`);
  }
  return parsed.toString();
}
