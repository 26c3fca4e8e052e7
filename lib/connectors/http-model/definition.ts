import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

const objectSchema = { type: "object", properties: {} };

export const httpModelSourceDefinition: ConnectorDefinition = {
  name: "HttpModel",
  title: "HTTP model endpoint",
  connectorType: "source",
  category: "AI Model",
  subCategory: "AI_ML Service",
  icon: "/icons/http-model.svg",
  documentationUrl: "https://shopify.github.io/liquid/basics/introduction/",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "HTTP model endpoint",
    type: "object",
    required: ["url"],
    properties: {
      url: {
        type: "string",
        title: "Endpoint URL",
        description: "The http(s) URL of the model's prediction endpoint.",
        format: "uri",
        pattern: "^https?://",
        order: 0,
      },
      method: {
        type: "string",
        title: "HTTP method",
        description: "Method of the prediction request.",
        enum: ["POST", "PUT", "PATCH"],
        default: "POST",
        order: 1,
      },
      headers: {
        type: "object",
        title: "Headers",
        description: "Request headers, e.g. Authorization with an API key. Stored encrypted and masked when shown.",
        // The reference console masks the field that carries multiwoven_secret: here each header's value.
        additionalProperties: { type: "string", multiwoven_secret: true },
        secret: true,
        order: 2,
      },
      timeout: {
        type: "integer",
        title: "Timeout (seconds)",
        description: "How long to wait for each prediction.",
        minimum: 1,
        maximum: 600,
        default: 30,
        order: 3,
      },
      request_format: {
        type: "string",
        title: "Request body template",
        description:
          'JSON with Liquid placeholders for the input row, e.g. {"inputs": {"text": "{{ text }}", "id": "{{ id }}"}}. A string that is exactly one {{ field }} keeps the field\'s type. Empty: the input row itself is the body.',
        multiline: true,
        order: 4,
      },
      response_format: {
        type: "object",
        title: "Response mapping",
        description:
          'Output field → dotted path in the JSON response, e.g. {"label": "predictions.0.label", "score": "predictions[0].score"}. Empty: the response\'s top-level fields.',
        additionalProperties: { type: "string" },
        order: 5,
      },
      input_schema: {
        type: "object",
        title: "Input schema",
        description: "JSON Schema of one input row (the fields the request template uses).",
        default: objectSchema,
        order: 6,
      },
      output_schema: {
        type: "object",
        title: "Output schema",
        description: "JSON Schema of the fields the model adds to each row.",
        default: objectSchema,
        order: 7,
      },
      concurrency: {
        type: "integer",
        title: "Concurrent requests",
        description: "How many predictions may be in flight at once.",
        minimum: 1,
        maximum: 32,
        default: 4,
        order: 8,
      },
    },
  },
};
