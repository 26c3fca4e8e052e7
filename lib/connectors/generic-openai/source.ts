// GenericOpenAI source: one chat completions call (POST to the configured URL, Bearer key) per input
// row; with is_stream, `stream: true` and the chunks assembled into one chat.completion.
import type { Row } from "../types";
import { stringField } from "../shared/config";
import { baseUrl, sampleInput, renderRequest } from "../model-kit/formats";
import { assembleChatCompletion, chatText } from "../model-kit/chat-completions";
import { callModel, type ModelCall } from "../model-kit/http";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { genericOpenAiSourceDefinition } from "./definition";

interface GenericOpenAiSettings extends KitSettings {
  url: string;
  apiKey: string;
}

function settings(config: Row): GenericOpenAiSettings {
  return { ...kitSettings(config), url: baseUrl(stringField(config, "url"), "url"), apiKey: stringField(config, "api_key") };
}

const call = (s: GenericOpenAiSettings, body: unknown, sse: boolean): ModelCall => ({
  vendor: new URL(s.url).host,
  method: "POST",
  url: s.url,
  headers: { authorization: `Bearer ${s.apiKey}` },
  secretHeaders: ["authorization"],
  body,
  sse,
  budget: ["openai-compatible", s.url, s.apiKey],
});

async function predict(s: GenericOpenAiSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const answer = await callModel(s, call(s, { ...(body as Row), stream: s.stream }, s.stream), signal);
  return s.stream ? assembleChatCompletion(answer.events ?? []) : answer.json;
}

async function check(s: GenericOpenAiSettings, signal?: AbortSignal): Promise<string> {
  // The URL is one endpoint (no model list to ask): a sample completion, as the reference checks.
  const body = { ...(renderRequest(s.requestTemplate, sampleInput(s.requestTemplate)) as Row), stream: false };
  await callModel({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, call(s, body, false), signal);
  return `${new URL(s.url).host} answered a sample chat completion.`;
}

export const genericOpenAiSource = makeModelSource<GenericOpenAiSettings>({
  definition: genericOpenAiSourceDefinition,
  settings,
  predict,
  completion: chatText,
  check,
  endpoint: (s) => s.url,
});
