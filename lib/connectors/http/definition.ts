import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import type { ConnectorDefinition } from "../types";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * The method and URL template of one kind of request (insert, update, delete); unset, it takes the
 * connector's method and destination URL. URL templates are Liquid over the record's payload, each
 * value URL-encoded: https://api.example.com/contacts/{{ id }}.
 */
function requestFields(kind: "insert" | "update" | "delete", what: string, order: number) {
  return {
    [`${kind}_method`]: {
      type: "string",
      title: `${kind[0].toUpperCase()}${kind.slice(1)} method`,
      description: `Method of the requests that ${what}. Default: the HTTP method above.`,
      enum: METHODS,
      order,
    },
    [`${kind}_url`]: {
      type: "string",
      title: `${kind[0].toUpperCase()}${kind.slice(1)} URL template`,
      description: `Where the requests that ${what} go, e.g. https://api.example.com/contacts/{{ id }} (payload fields, URL-encoded). Default: the destination URL.`,
      pattern: "^https?://",
      maxLength: 2048,
      order: order + 1,
    },
  };
}

export const httpDestinationDefinition: ConnectorDefinition = {
  name: "Http",
  title: "HTTP webhook",
  connectorType: "destination",
  category: "HTTP",
  icon: "/icons/http.svg",
  documentationUrl: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Methods",
  streamType: "dynamic",
  // Each request is an effect of its own: the engine keeps a delivery ledger (never sent twice).
  idempotentWrites: false,
  writeModes: WRITE_MODES,
  // Headers and the signing secret go wherever a request goes.
  secretTargetFields: ["destination_url", "insert_url", "update_url", "delete_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "HTTP webhook",
    type: "object",
    required: ["destination_url"],
    properties: {
      destination_url: {
        type: "string",
        title: "Destination URL",
        description: "The http(s) URL that receives the records.",
        format: "uri",
        pattern: "^https?://",
        order: 0,
      },
      method: {
        type: "string",
        title: "HTTP method",
        description: "Method of each request. GET sends the payload fields as query parameters, without a body.",
        enum: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        default: "POST",
        order: 1,
      },
      headers: {
        type: "object",
        title: "Headers",
        description: "Extra request headers, e.g. Authorization. Stored encrypted and masked when shown.",
        // The reference console masks the field that carries multiwoven_secret: here each header's value.
        additionalProperties: { type: "string", multiwoven_secret: true },
        secret: true,
        order: 2,
      },
      hmac_secret: {
        type: "string",
        title: "Signing secret",
        description: "When set, each request carries X-Signature-256: sha256=<hex HMAC-SHA256 of the body> so the receiver can verify it.",
        secret: true,
        multiwoven_secret: true,
        order: 3,
      },
      timeout: {
        type: "integer",
        title: "Timeout (seconds)",
        description: "How long to wait for the response to each request.",
        minimum: 1,
        maximum: 300,
        default: 30,
        order: 4,
      },
      stream_name: {
        type: "string",
        title: "Stream name",
        description: "Name of the single stream this webhook offers to syncs.",
        default: "webhook",
        order: 5,
      },
      batch_size: {
        type: "integer",
        title: "Batch size",
        description: "Records per request when a sync sends batches (the body is then a JSON array).",
        minimum: 1,
        maximum: 10000,
        default: 100,
        order: 6,
      },
      ...requestFields("insert", "create a record (a row new to the sync)", 7),
      ...requestFields("update", "update a record the sync delivered before", 9),
      ...requestFields("delete", "delete a record that left the model (mirror mode, delete detection)", 11),
    },
  },
};
