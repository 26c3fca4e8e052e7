import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { optionalString } from "../shared/config";
import { requestFormatModel } from "./settings";

/**
 * OpenAI-compatible model API: OpenAI itself and the local servers that speak its protocol (Ollama,
 * vLLM, llama.cpp's server, LM Studio…). The model query holds the input rows; see source.ts.
 */
export const openAiSourceDefinition: ConnectorDefinition = {
  name: "OpenAI",
  title: "OpenAI-compatible API",
  connectorType: "source",
  category: "AI Model",
  subCategory: "LLM",
  icon: "/icons/openai.svg",
  documentationUrl: "https://platform.openai.com/docs/api-reference",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["base_url"],
  configurationProblems: (config) =>
    optionalString(config, "model") || requestFormatModel(config)
      ? []
      : [{ path: "model", message: "is required: name the model, or give a request_format whose JSON names it" }],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "OpenAI-compatible API",
    type: "object",
    // The reference's three fields; base_url defaults to OpenAI's API and model to the one
    // request_format names (configurationProblems says when neither names one).
    required: [],
    properties: {
      base_url: {
        type: "string",
        title: "Base URL",
        description:
          "Where the API lives, without /v1: https://api.openai.com, or a local server such as http://ollama:11434 or http://vllm:8000. A trailing /v1 is accepted.",
        format: "uri",
        pattern: "^https?://",
        default: "https://api.openai.com",
        order: 0,
      },
      api_key: {
        type: "string",
        title: "API key",
        description: "Sent as a Bearer token. Leave empty for local servers that need none. Stored encrypted and masked when shown.",
        secret: true,
        multiwoven_secret: true,
        order: 1,
      },
      model: {
        type: "string",
        title: "Model",
        description: "The model name as the server lists it, e.g. gpt-4o-mini, text-embedding-3-small, llama3.1. A model query may name another.",
        minLength: 1,
        order: 2,
      },
      operation: {
        type: "string",
        title: "Operation",
        description: "chat: one chat completion per input row. embeddings: one vector per input row, sent in batches.",
        enum: ["chat", "embeddings"],
        default: "chat",
        order: 3,
      },
      prompt_template: {
        type: "string",
        title: "Prompt template",
        description:
          "Liquid over the input row's fields: the user message (chat) or the text to embed (embeddings), e.g. \"Classify the sentiment of: {{ review }}\".",
        default: "{{ text }}",
        multiline: true,
        order: 4,
      },
      system_prompt: {
        type: "string",
        title: "System prompt",
        description: "Chat only: a system message sent before the prompt (Liquid over the input row too). Empty: none.",
        multiline: true,
        order: 5,
      },
      response_format: {
        type: "string",
        title: "Response format",
        description:
          "Chat only. text: the reply as a string. json_object: asks for JSON (the prompt must say so) and parses the reply, so its fields can be mapped. A sample answer in JSON (the reference's use of the field) means text.",
        pattern: "^(text|json_object|\\s*[\\[{][\\s\\S]*)$",
        default: "text",
        order: 6,
      },
      request_format: {
        type: "string",
        title: "Sample request",
        description:
          "The request body in JSON, as the reference keeps it: its model is used when Model is empty, and when it has {{ field }} placeholders and no prompt template is set, its messages (and other members) are rendered for each input row.",
        multiline: true,
        order: 16,
      },
      is_stream: {
        type: "boolean",
        title: "Streaming",
        description: "Accepted for the reference's settings; each reply is read whole.",
        default: false,
        order: 17,
      },
      config: {
        type: "object",
        title: "Request options",
        description: "The reference's per-request options.",
        properties: {
          timeout: {
            type: "string",
            title: "Timeout (seconds)",
            description: "How long to wait for each request (used when timeout is not set).",
            pattern: "^[0-9]+(\\.[0-9]+)?$",
            default: "30",
          },
        },
        order: 18,
      },
      output_field: {
        type: "string",
        title: "Output column",
        description: "Name of the column that receives the reply (chat) or the vector (embeddings). Default: completion, or embedding.",
        pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
        order: 7,
      },
      max_tokens: {
        type: "integer",
        title: "Max tokens",
        description: "Chat only: the most tokens a reply may have. Empty: the server's default.",
        minimum: 1,
        maximum: 1000000,
        order: 8,
      },
      temperature: {
        type: "number",
        title: "Temperature",
        description: "Chat only: sampling temperature between 0 and 2. Empty: the server's default.",
        minimum: 0,
        maximum: 2,
        order: 9,
      },
      dimensions: {
        type: "integer",
        title: "Dimensions",
        description: "Embeddings only: the vector length, for models that can shorten it. Empty: the model's own.",
        minimum: 1,
        maximum: 65536,
        order: 10,
      },
      embedding_batch_size: {
        type: "integer",
        title: "Embedding inputs per request",
        description: "Embeddings only: how many texts one request carries.",
        minimum: 1,
        maximum: 2048,
        default: 64,
        order: 11,
      },
      timeout: {
        type: "integer",
        title: "Timeout (seconds)",
        description: "How long to wait for each request.",
        minimum: 1,
        maximum: 600,
        default: 60,
        order: 12,
      },
      concurrency: {
        type: "integer",
        title: "Concurrent requests",
        description: "How many requests may be in flight at once.",
        minimum: 1,
        maximum: 32,
        default: 4,
        order: 13,
      },
      requests_per_minute: {
        type: "integer",
        title: "Requests per minute",
        description: "Spaces requests so that no more than this many start in a minute (per worker process). 0: no limit.",
        minimum: 0,
        maximum: 100000,
        default: 0,
        order: 14,
      },
      max_retries: {
        type: "integer",
        title: "Retries",
        description: "How often a request answered with 429, 5xx or no answer is tried again, waiting as Retry-After says (else 1 s, 2 s, 4 s…).",
        minimum: 0,
        maximum: 10,
        default: 3,
        order: 15,
      },
    },
  },
};
