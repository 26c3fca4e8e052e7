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
  secretTargetFields: ["url", "url_host"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "HTTP model endpoint",
    type: "object",
    // The reference's url_host and http_method, unless the connector was saved with our url (and method).
    required: [],
    allOf: [{ if: { required: ["url"] }, else: { required: ["url_host", "http_method"] } }],
    properties: {
      url_host: {
        type: "string",
        title: "Endpoint URL",
        description: "The http(s) URL of the model's prediction endpoint.",
        format: "uri",
        pattern: "^https?://",
        order: 0,
      },
      http_method: {
        type: "string",
        title: "HTTP method",
        description: "Method of the prediction request. A GET sends the request template's top-level fields as query parameters.",
        enum: ["POST", "GET"],
        default: "POST",
        order: 1,
      },
      // Our earlier names of the two fields above (url wins over url_host, method over http_method).
      url: {
        type: "string",
        title: "Endpoint URL (earlier name)",
        description: "The endpoint's URL under the name connectors saved before url_host.",
        format: "uri",
        pattern: "^https?://",
        deprecated: true,
        order: 0,
      },
      method: {
        type: "string",
        title: "HTTP method (earlier name)",
        description: "The method under the name connectors saved before http_method; PUT and PATCH only here.",
        enum: ["POST", "PUT", "PATCH", "GET"],
        deprecated: true,
        order: 1,
      },
      is_stream: {
        type: "boolean",
        title: "Streaming",
        description: "Accepted for the reference's settings; each answer is read whole.",
        default: false,
        order: 9,
      },
      config: {
        type: "object",
        title: "Request options",
        description: "The reference's per-request options.",
        properties: {
          timeout: {
            type: "string",
            title: "Timeout (seconds)",
            description: "How long to wait for each prediction (used when timeout is not set).",
            pattern: "^[0-9]+(\\.[0-9]+)?$",
            default: "30",
          },
        },
        order: 10,
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
        type: ["object", "string"],
        title: "Response mapping",
        description:
          'Output field → dotted path in the JSON response, e.g. {"label": "predictions.0.label", "score": "predictions[0].score"}. Empty, or a sample answer as text (as the reference keeps it): the response\'s top-level fields.',
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
      max_retries: {
        type: "integer",
        title: "Retries",
        description: "How often a prediction answered with 429, 5xx or no answer is tried again, waiting as Retry-After says (else 1 s, 2 s, 4 s…).",
        minimum: 0,
        maximum: 10,
        default: 3,
        order: 11,
      },
    },
  },
};
