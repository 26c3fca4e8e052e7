// Fields every REST destination's form shares, so a vendor declares only what is its own.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { JsonSchema } from "../types";

/** The credential field: a secret string, masked in every answer and log. */
export function secretField(title: string, description: string, order = 0): JsonSchema {
  return { type: "string", title, description, minLength: 1, secret: true, multiwoven_secret: true, order };
}

/**
 * `base_url` and `timeout`, last in the form. The base URL defaults to the vendor's API and is only
 * changed for a proxy or a test server; it is a secret target field, so a stored credential is never
 * sent to a new base URL without being entered again.
 */
export function commonFields(baseUrl: string | { derived: string } | { required: string; title: string }, order: number): Record<string, JsonSchema> {
  const fixed = typeof baseUrl === "string";
  const description = fixed
    ? `Where requests go. Default ${baseUrl}; change it only for a proxy or a test server.`
    : "derived" in baseUrl
      ? `Where requests go. Default ${baseUrl.derived}; change it only for a proxy or a test server.`
      : baseUrl.required;
  return {
    base_url: {
      type: "string",
      title: !fixed && "title" in baseUrl ? baseUrl.title : "API base URL (advanced)",
      description,
      format: "uri",
      pattern: "^https?://",
      ...(fixed ? { default: baseUrl } : {}),
      order,
    },
    timeout: {
      type: "integer",
      title: "Timeout (seconds)",
      description: "How long to wait for each response.",
      minimum: 1,
      maximum: 300,
      default: 30,
      order: order + 1,
    },
  };
}

/** A connection specification: the vendor's fields, then the common ones. */
export function restSpecification(
  title: string,
  /** The vendor's URL; `derived` describes one that follows from other fields, `required` one the user enters. */
  baseUrl: string | { derived: string } | { required: string; title: string },
  properties: Record<string, JsonSchema>,
  required: string[],
): JsonSchema {
  const order = Object.keys(properties).length;
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title,
    type: "object",
    required,
    properties: { ...properties, ...commonFields(baseUrl, order) },
  };
}
