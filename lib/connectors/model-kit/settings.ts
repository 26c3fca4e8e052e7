// The kit's typed settings, from the reference's fields (request_format, response_format, is_stream,
// config.timeout) and ours (timeout, concurrency, requests_per_minute, tokens_per_minute, max_retries).
import type { Row } from "../types";
import { numberField, objectField, optionalString, secondsToMs } from "../shared/config";
import { ConnectorError, errorMessage } from "../shared/errors";

/** How the output columns are taken from an answer. */
export type ResponsePick =
  /** Every top-level field of the answer. */
  | { kind: "all" }
  /** These top-level fields (a sample answer's). */
  | { kind: "fields"; fields: string[]; sample: Row }
  /** Column → dotted path. */
  | { kind: "paths"; paths: Record<string, string> };

export interface KitSettings {
  /** The parsed request_format: JSON whose strings may hold Liquid. */
  requestTemplate: unknown;
  response: ResponsePick;
  stream: boolean;
  timeoutMs: number;
  concurrency: number;
  requestsPerMinute: number;
  tokensPerMinute: number;
  maxRetries: number;
}

const whole = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.floor(n)));

export function parseRequestFormat(config: Row): unknown {
  const text = optionalString(config, "request_format");
  if (!text?.trim()) throw new ConnectorError('"request_format" is required: the request body in JSON, with {{ field }} placeholders.');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConnectorError(`"request_format" is not valid JSON: ${errorMessage(err)}.`);
  }
}

/**
 * response_format as the reference keeps it (a sample answer, as JSON text) or as our mapping object.
 * A sample that is not a JSON object (or none) picks every top-level field.
 */
export function responsePick(config: Row): ResponsePick {
  const value = config.response_format;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Row);
    if (entries.length > 0 && entries.every(([, v]) => typeof v === "string")) return { kind: "paths", paths: value as Record<string, string> };
    return entries.length > 0 ? { kind: "fields", fields: entries.map(([k]) => k), sample: value as Row } : { kind: "all" };
  }
  if (typeof value !== "string" || !value.trim()) return { kind: "all" };
  let sample: unknown;
  try {
    sample = JSON.parse(value);
  } catch {
    throw new ConnectorError('"response_format" must be a sample answer in JSON (or a mapping object).');
  }
  if (!sample || typeof sample !== "object" || Array.isArray(sample) || Object.keys(sample).length === 0) return { kind: "all" };
  return { kind: "fields", fields: Object.keys(sample), sample: sample as Row };
}

export function kitSettings(config: Row, defaults: { requestsPerMinute?: number } = {}): KitSettings {
  return {
    requestTemplate: parseRequestFormat(config),
    response: responsePick(config),
    stream: config.is_stream === true || config.is_stream === "true",
    // Ours (an integer) wins over the reference's config.timeout (a string); 30 s as the reference.
    timeoutMs: secondsToMs(config.timeout !== undefined && config.timeout !== null ? config : objectField(config, "config"), "timeout", 30),
    concurrency: whole(numberField(config, "concurrency", 4), 1, 32),
    requestsPerMinute: whole(numberField(config, "requests_per_minute", defaults.requestsPerMinute ?? 0), 0, 100000),
    tokensPerMinute: whole(numberField(config, "tokens_per_minute", 0), 0, 100000000),
    maxRetries: whole(numberField(config, "max_retries", 3), 0, 10),
  };
}
