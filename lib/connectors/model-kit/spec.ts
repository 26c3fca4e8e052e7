// The settings every model source of the kit shares: the reference's request_format, response_format,
// is_stream and config.timeout, and our optional limits (timeout, concurrency, requests and tokens
// per minute, retries). A connector's definition spreads these next to its own connection fields.
import type { JsonSchema } from "../types";

export interface SharedSpecOptions {
  /** The vendor streams (is_stream is offered). */
  streaming: boolean;
  /** The vendor's published requests-per-minute default, or 0 (no spacing). */
  requestsPerMinute?: number;
  /** A sample request for the placeholder text of request_format. */
  requestDefault?: string;
  /** A sample answer for response_format. */
  responseDefault?: string;
  /** First `order` of the shared fields, after the connector's own. */
  order: number;
}

export function sharedModelProperties(o: SharedSpecOptions): Record<string, JsonSchema> {
  let order = o.order;
  const next = () => order++;
  return {
    request_format: {
      type: "string",
      title: "Request format",
      description:
        'The request body in JSON, with Liquid placeholders filled from each input row, e.g. {"messages": [{"role": "user", "content": "{{ prompt }}"}]}. A string that is exactly one {{ field }} keeps the field\'s type.',
      multiline: true,
      ...(o.requestDefault ? { default: o.requestDefault } : {}),
      order: next(),
    },
    response_format: {
      type: ["string", "object"],
      title: "Response format",
      description:
        "A sample answer in JSON: its top-level fields become the output columns, picked from each real answer. Or an object mapping output column → dotted path, e.g. {\"label\": \"predictions.0.label\"}. Empty: every top-level field of the answer.",
      multiline: true,
      ...(o.responseDefault ? { default: o.responseDefault } : {}),
      order: next(),
    },
    ...(o.streaming
      ? {
          is_stream: {
            type: "boolean",
            title: "Streaming",
            description: "Ask for the answer as a stream of server-sent events; the events are assembled into one answer per row.",
            default: false,
            order: next(),
          },
        }
      : {}),
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
      order: next(),
    },
    timeout: {
      type: "integer",
      title: "Timeout (seconds)",
      description: "How long to wait for each prediction, streamed answers included.",
      minimum: 1,
      maximum: 600,
      order: next(),
    },
    concurrency: {
      type: "integer",
      title: "Concurrent requests",
      description: "How many predictions may be in flight at once.",
      minimum: 1,
      maximum: 32,
      default: 4,
      order: next(),
    },
    requests_per_minute: {
      type: "integer",
      title: "Requests per minute",
      description: "Spaces requests so that no more than this many start in a minute (per worker process). 0: no limit.",
      minimum: 0,
      maximum: 100000,
      default: o.requestsPerMinute ?? 0,
      order: next(),
    },
    tokens_per_minute: {
      type: "integer",
      title: "Tokens per minute",
      description:
        "Spaces requests by their estimated tokens (the request's length / 4 plus its output token limit) so that no more than this many are spent in a minute. 0: no limit.",
      minimum: 0,
      maximum: 100000000,
      default: 0,
      order: next(),
    },
    max_retries: {
      type: "integer",
      title: "Retries",
      description: "How often a request answered with 429, 5xx or no answer is tried again, waiting as Retry-After says (else 1 s, 2 s, 4 s…).",
      minimum: 0,
      maximum: 10,
      default: 3,
      order: next(),
    },
  };
}
