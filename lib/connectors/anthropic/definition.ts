// The Anthropic source's definition: the reference's settings unchanged (api_key, is_stream,
// config.timeout, request_format, response_format); base_url, anthropic_version and the kit's limits
// are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";

export const ANTHROPIC_API = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic's published request limit of its first usage tier (Claude models, requests per minute). */
export const ANTHROPIC_TIER1_RPM = 50;

export const anthropicSourceDefinition: ConnectorDefinition = {
  name: "Anthropic",
  title: "Anthropic",
  connectorType: "source",
  category: "AI Model",
  subCategory: "LLM",
  icon: "/icons/anthropic.svg",
  documentationUrl: "https://docs.anthropic.com/en/api/messages",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Anthropic",
    type: "object",
    required: ["api_key", "request_format", "response_format"],
    properties: {
      api_key: {
        type: "string",
        title: "API key",
        description: "An Anthropic API key (Console → API keys), sent as x-api-key. Stored encrypted and masked when shown.",
        secret: true,
        multiwoven_secret: true,
        order: 0,
      },
      base_url: {
        type: "string",
        title: "API base URL",
        description: "The Messages API's root; change it only for a gateway or a test emulator.",
        format: "uri",
        pattern: "^https?://",
        default: ANTHROPIC_API,
        order: 1,
      },
      anthropic_version: {
        type: "string",
        title: "API version",
        description: "Sent as the anthropic-version header.",
        default: ANTHROPIC_VERSION,
        order: 2,
      },
      ...sharedModelProperties({
        streaming: true,
        requestsPerMinute: ANTHROPIC_TIER1_RPM,
        requestDefault: '{"model": "claude-3-5-haiku-latest", "max_tokens": 256, "messages": [{"role": "user", "content": "{{ prompt }}"}]}',
        order: 3,
      }),
    },
  },
};
