// Anthropic source: one Messages API call (POST /v1/messages, x-api-key and anthropic-version
// headers) per input row. With is_stream the request says `stream: true` and the event stream
// (message_start, content_block_start/delta/stop, message_delta, message_stop, error) is assembled
// into the Message the non-streamed call returns, so response_format picks the same fields.
import type { Row } from "../types";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { baseUrl, namedModel } from "../model-kit/formats";
import { callModel, PredictionFailed, type ModelCall } from "../model-kit/http";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { ANTHROPIC_API, ANTHROPIC_TIER1_RPM, ANTHROPIC_VERSION, anthropicSourceDefinition } from "./definition";

interface AnthropicSettings extends KitSettings {
  apiUrl: string;
  apiKey: string;
  version: string;
}

function settings(config: Row): AnthropicSettings {
  return {
    ...kitSettings(config, { requestsPerMinute: ANTHROPIC_TIER1_RPM }),
    apiUrl: baseUrl(optionalString(config, "base_url") ?? ANTHROPIC_API, "base_url"),
    apiKey: stringField(config, "api_key"),
    version: optionalString(config, "anthropic_version") ?? ANTHROPIC_VERSION,
  };
}

const call = (s: AnthropicSettings, method: "GET" | "POST", path: string, body?: unknown, sse = false): ModelCall => ({
  vendor: "Anthropic",
  method,
  url: `${s.apiUrl}${path}`,
  headers: { "x-api-key": s.apiKey, "anthropic-version": s.version },
  secretHeaders: ["x-api-key"],
  body,
  sse,
  budget: ["anthropic", s.apiUrl, s.apiKey],
});

interface ContentBlock {
  type?: string;
  text?: string;
  input?: unknown;
  partial_json?: string;
}

/** The Message an event stream describes, as the non-streamed call would have answered it. */
export function assembleMessage(events: { event: string; data: unknown }[]): Row {
  let message: Row | undefined;
  const blocks: ContentBlock[] = [];
  for (const { data } of events) {
    const e = (data ?? {}) as Row;
    switch (e.type) {
      case "message_start":
        message = { ...((e.message as Row) ?? {}) };
        break;
      case "content_block_start":
        blocks[Number(e.index)] = { ...((e.content_block as ContentBlock) ?? {}) };
        break;
      case "content_block_delta": {
        const block = (blocks[Number(e.index)] ??= { type: "text", text: "" });
        const delta = (e.delta ?? {}) as Row;
        if (delta.type === "text_delta") block.text = (block.text ?? "") + String(delta.text ?? "");
        else if (delta.type === "input_json_delta") block.partial_json = (block.partial_json ?? "") + String(delta.partial_json ?? "");
        break;
      }
      case "message_delta": {
        if (!message) break;
        Object.assign(message, (e.delta as Row) ?? {});
        message.usage = { ...((message.usage as Row) ?? {}), ...((e.usage as Row) ?? {}) };
        break;
      }
      case "error": {
        const err = (e.error ?? {}) as Row;
        const sentence = `Anthropic stopped the stream: ${String(err.message ?? err.type ?? "an error")}`;
        // Overload and API errors are Anthropic's, not the row's.
        if (err.type === "overloaded_error" || err.type === "api_error") throw new ConnectorError(sentence, "http_529");
        throw new PredictionFailed(sentence);
      }
    }
  }
  if (!message) throw new PredictionFailed("Anthropic's stream ended without a message_start event.");
  message.content = blocks.filter(Boolean).map(({ partial_json, ...block }) => {
    if (partial_json === undefined) return block;
    try {
      return { ...block, input: JSON.parse(partial_json) };
    } catch {
      return { ...block, input: partial_json };
    }
  });
  return message;
}

async function predict(s: AnthropicSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const request = { ...(body as Row), stream: s.stream };
  const answer = await callModel(s, call(s, "POST", "/v1/messages", request, s.stream), signal);
  return s.stream ? assembleMessage(answer.events ?? []) : answer.json;
}

function completion(answer: unknown): string | undefined {
  const content = (answer as { content?: ContentBlock[] } | null)?.content;
  if (!Array.isArray(content)) return undefined;
  return content
    .filter((b) => b?.type === "text")
    .map((b) => b.text ?? "")
    .join("");
}

async function check(s: AnthropicSettings, signal?: AbortSignal): Promise<string> {
  const model = namedModel(s.requestTemplate);
  // Listing models costs no tokens; naming the model checks it exists too.
  const path = model ? `/v1/models/${encodeURIComponent(model)}` : "/v1/models?limit=1";
  await callModel({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, call(s, "GET", path), signal);
  return model ? `Connected to Anthropic: the model "${model}" is available.` : "Connected to Anthropic.";
}

export const anthropicSource = makeModelSource<AnthropicSettings>({
  definition: anthropicSourceDefinition,
  settings,
  predict,
  completion,
  check,
  endpoint: (s) => `${s.apiUrl}/v1/messages`,
});
