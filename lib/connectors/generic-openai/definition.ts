// The GenericOpenAI source's definition: the reference's settings unchanged (url, api_key, is_stream,
// config.timeout, request_format, response_format); the kit's limits are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";

export const OPENAI_CHAT_URL = "https://api.openai.com/v1/chat/completions";

export const genericOpenAiSourceDefinition: ConnectorDefinition = {
  name: "GenericOpenAI",
  title: "OpenAI-compatible endpoint",
  connectorType: "source",
  category: "AI Model",
  subCategory: "LLM",
  icon: "/icons/generic-openai.svg",
  documentationUrl: "https://platform.openai.com/docs/api-reference/chat",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "OpenAI-compatible endpoint",
    type: "object",
    required: ["url", "api_key", "request_format", "response_format"],
    properties: {
      url: {
        type: "string",
        title: "Chat completions URL",
        description: "The full address of the chat completions endpoint, e.g. https://api.openai.com/v1/chat/completions or http://vllm:8000/v1/chat/completions.",
        format: "uri",
        pattern: "^https?://",
        default: OPENAI_CHAT_URL,
        order: 0,
      },
      api_key: {
        type: "string",
        title: "API key",
        description: "Sent as a Bearer token. Stored encrypted and masked when shown.",
        secret: true,
        multiwoven_secret: true,
        order: 1,
      },
      ...sharedModelProperties({
        streaming: true,
        requestDefault: '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "{{ prompt }}"}]}',
        order: 2,
      }),
    },
  },
};
