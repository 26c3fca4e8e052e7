// What one call of the OpenAI-compatible source runs with: the connector's configuration, overridden
// by the model query's own settings. The query is a JSON array of input rows, or an object
// `{"inputs": [...], "operation": "embeddings", "prompt_template": "...", ...}` so that one
// connector (one API key) serves chat models and embedding models alike.
import type { Row } from "../types";
import { numberField, objectField, optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";

export type Operation = "chat" | "embeddings";
export type ResponseFormat = "text" | "json_object";

export interface OpenAiSettings {
  /** The API root, ending in /v1 (no trailing slash). */
  apiUrl: string;
  apiKey?: string;
  model: string;
  operation: Operation;
  promptTemplate: string;
  /**
   * The reference's request_format as the chat body's template, when it has Liquid placeholders and
   * no prompt_template is set: its messages (and other members) rendered for each input row.
   */
  requestTemplate?: Row;
  systemPrompt?: string;
  responseFormat: ResponseFormat;
  outputField: string;
  maxTokens?: number;
  temperature?: number;
  dimensions?: number;
  embeddingBatchSize: number;
  timeoutMs: number;
  concurrency: number;
  requestsPerMinute: number;
  maxRetries: number;
}

/** Settings a model query may override (the connection and its limits stay the connector's). */
export const QUERY_SETTINGS = [
  "model",
  "operation",
  "prompt_template",
  "system_prompt",
  "response_format",
  "output_field",
  "max_tokens",
  "temperature",
  "dimensions",
] as const;

const OUTPUT_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `http://host:11434`, `http://host:11434/` and `http://host:11434/v1` all mean `http://host:11434/v1`. */
export function apiRoot(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, "");
  return /\/v1$/i.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

function oneOf<T extends string>(config: Row, key: string, allowed: readonly T[], fallback: T): T {
  const value = stringField(config, key, fallback);
  if (!(allowed as readonly string[]).includes(value)) throw new ConnectorError(`"${key}" must be one of ${allowed.join(", ")}, got "${value}".`);
  return value as T;
}

function optionalNumber(config: Row, key: string): number | undefined {
  const value = config[key];
  return value === undefined || value === null || value === "" ? undefined : numberField(config, key, 0);
}

function atLeast(value: number, min: number): number {
  return Math.max(min, Math.floor(value));
}

/** The API the reference's settings (which name none) mean. */
export const OPENAI_BASE_URL = "https://api.openai.com";

/** The model named by the reference's request_format, a sample request such as {"model": "gpt-4o-mini", …}. */
export function requestFormatModel(config: Row): string | undefined {
  const text = optionalString(config, "request_format");
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    const model = parsed && typeof parsed === "object" ? (parsed as Row).model : undefined;
    return typeof model === "string" && model.trim() !== "" ? model.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** request_format as a template: a JSON object with a messages array and a placeholder somewhere. */
export function requestTemplate(config: Row): Row | undefined {
  const text = optionalString(config, "request_format");
  if (!text || optionalString(config, "prompt_template") !== undefined || !/\{\{|\{%/.test(text)) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) && Array.isArray((parsed as Row).messages) ? (parsed as Row) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * text or json_object; the reference keeps a sample answer (JSON text) in response_format for
 * people to read, which asks for nothing: the reply as text.
 */
function responseFormat(config: Row): ResponseFormat {
  const value = stringField(config, "response_format", "text").trim();
  if (value === "text" || value === "json_object") return value;
  if (/^[[{]/.test(value)) return "text";
  throw new ConnectorError(`"response_format" must be text, json_object or a sample answer in JSON, got "${value.slice(0, 40)}".`);
}

/**
 * The typed settings, from our fields or the reference's (api_key, request_format, response_format,
 * config.timeout): base_url defaults to OpenAI's API, the model to the one request_format names,
 * and timeout (ours) wins over config.timeout.
 */
export function openAiSettings(config: Row): OpenAiSettings {
  const operation = oneOf<Operation>(config, "operation", ["chat", "embeddings"], "chat");
  const outputField = stringField(config, "output_field", operation === "chat" ? "completion" : "embedding");
  if (!OUTPUT_FIELD.test(outputField)) throw new ConnectorError(`"output_field" must be a column name (letters, digits, _), got "${outputField}".`);
  return {
    apiUrl: apiRoot(optionalString(config, "base_url") ?? OPENAI_BASE_URL),
    apiKey: optionalString(config, "api_key"),
    model: optionalString(config, "model") ?? requestFormatModel(config) ?? stringField(config, "model"),
    operation,
    promptTemplate: stringField(config, "prompt_template", "{{ text }}"),
    requestTemplate: requestTemplate(config),
    systemPrompt: optionalString(config, "system_prompt"),
    responseFormat: responseFormat(config),
    outputField,
    maxTokens: optionalNumber(config, "max_tokens"),
    temperature: optionalNumber(config, "temperature"),
    dimensions: optionalNumber(config, "dimensions"),
    embeddingBatchSize: atLeast(numberField(config, "embedding_batch_size", 64), 1),
    timeoutMs: secondsToMs(config.timeout !== undefined ? config : objectField(config, "config"), "timeout", 60),
    concurrency: atLeast(numberField(config, "concurrency", 4), 1),
    requestsPerMinute: atLeast(numberField(config, "requests_per_minute", 0), 0),
    maxRetries: Math.min(10, atLeast(numberField(config, "max_retries", 3), 0)),
  };
}

export interface ModelQuery {
  inputs: Row[];
  /** The query's own settings, as configuration keys (QUERY_SETTINGS). */
  overrides: Row;
}

const QUERY_HELP =
  'The model query is a JSON array of input rows, e.g. [{"id": 1, "text": "hello"}], or an object {"inputs": [...], "operation": "embeddings", …}.';

/** Parses a model query; throws ConnectorError with a sentence a person can act on. */
export function parseModelQuery(query: string): ModelQuery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(query);
  } catch {
    throw new ConnectorError(`${QUERY_HELP} It is not valid JSON.`);
  }
  let inputs: unknown;
  const overrides: Row = {};
  if (Array.isArray(parsed)) {
    inputs = parsed;
  } else if (parsed !== null && typeof parsed === "object") {
    const object = parsed as Row;
    const unknown = Object.keys(object).filter((k) => k !== "inputs" && !(QUERY_SETTINGS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new ConnectorError(`The model query has unknown settings: ${unknown.join(", ")}. Allowed: inputs, ${QUERY_SETTINGS.join(", ")}.`);
    if (!Array.isArray(object.inputs)) throw new ConnectorError(`${QUERY_HELP} "inputs" must be an array.`);
    inputs = object.inputs;
    for (const key of QUERY_SETTINGS) if (object[key] !== undefined) overrides[key] = object[key];
  } else {
    throw new ConnectorError(QUERY_HELP);
  }
  const rows = inputs as unknown[];
  const bad = rows.findIndex((r) => r === null || typeof r !== "object" || Array.isArray(r));
  if (bad >= 0) throw new ConnectorError(`Input row ${bad + 1} is not a JSON object.`);
  return { inputs: rows as Row[], overrides };
}

/** The settings of one model query: the connector's, with the query's overrides. */
export function settingsFor(config: Row, overrides: Row): OpenAiSettings {
  return openAiSettings({ ...config, ...overrides });
}
