// From an input row to a request body (request_format rendered by our bounded Liquid), and from an
// answer to output columns (response_format's pick).
import type { Row } from "../types";
import { renderJsonTemplate } from "../shared/liquid";
import { ConnectorError } from "../shared/errors";
import type { ResponsePick } from "./settings";

export function renderRequest(template: unknown, input: Row): unknown {
  return renderJsonTemplate(template, { ...input, row: input });
}

/** `predictions.0.label` and `predictions[0].label` both work. */
export function pickPath(value: unknown, path: string): unknown {
  const segments = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean);
  let node = value;
  for (const segment of segments) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The output columns of one answer. */
export function pickOutputs(pick: ResponsePick, answer: unknown): Row {
  switch (pick.kind) {
    case "all":
      return answer && typeof answer === "object" && !Array.isArray(answer) ? { ...(answer as Row) } : { output: answer ?? null };
    case "fields":
      return Object.fromEntries(pick.fields.map((f) => [f, answer && typeof answer === "object" ? ((answer as Row)[f] ?? null) : null]));
    case "paths":
      return Object.fromEntries(Object.entries(pick.paths).map(([column, path]) => [column, pickPath(answer, path) ?? null]));
  }
}

/** The columns the pick yields, for discovery, typed from the sample where there is one. */
export function pickColumns(pick: ResponsePick): Record<string, unknown> {
  if (pick.kind === "paths") return Object.fromEntries(Object.keys(pick.paths).map((c) => [c, {}]));
  if (pick.kind === "fields") return Object.fromEntries(pick.fields.map((f) => [f, { type: [jsonType(pick.sample[f]), "null"] }]));
  return {};
}

export function jsonType(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const PLACEHOLDER = /\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)/g;

/** An input row for a check: every top-level name the template's placeholders use, set to a short text. */
export function sampleInput(template: unknown): Row {
  const text = JSON.stringify(template);
  const row: Row = {};
  for (const match of text.matchAll(PLACEHOLDER)) if (match[1] !== "row") row[match[1]] = "Hello";
  return row;
}

/** Tokens a request may spend, estimated: its text / 4 plus the output limit it names. */
export function estimateTokens(body: unknown): number {
  const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
  const b = (body ?? {}) as Record<string, Record<string, unknown> | unknown>;
  const nested = (o: unknown, k: string) => (o && typeof o === "object" ? (o as Row)[k] : undefined);
  const limits = [
    b.max_tokens,
    b.max_completion_tokens,
    b.max_new_tokens,
    nested(b.parameters, "max_new_tokens"),
    nested(b.parameters, "max_tokens"),
    nested(b.generationConfig, "maxOutputTokens"),
    nested(b.inferenceConfig, "maxTokens"),
  ];
  const output = limits.find((v): v is number => typeof v === "number" && Number.isFinite(v) && v > 0) ?? 0;
  return Math.ceil(text.length / 4) + Math.floor(output);
}

/** The model a request_format names outright (no placeholder), e.g. {"model": "claude-3-5-haiku-latest", …}. */
export function namedModel(template: unknown, key = "model"): string | undefined {
  const value = template && typeof template === "object" ? (template as Row)[key] : undefined;
  return typeof value === "string" && value.trim() !== "" && !value.includes("{") ? value.trim() : undefined;
}

/** The base URL without trailing slashes, checked to be http(s). */
export function baseUrl(value: string, field: string): string {
  const trimmed = value.trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/i.test(trimmed)) throw new ConnectorError(`"${field}" must be an http(s) URL.`);
  return trimmed;
}
