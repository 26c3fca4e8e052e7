// Braze (REST API): user profiles are written as attributes objects with /users/track, 75 per
// request, identified by external_id (or email), with a REST API key as Bearer token; update mode
// sets _update_existing_only so no profile is created, and mirror deletes through /users/delete (50
// ids per request). Braze answers 201 "success" with the objects it could not take listed in
// `errors` (input_array + index), so only those records fail. Throttled answers carry
// X-RateLimit-Reset (epoch seconds), not Retry-After. Reference: braze.com/docs/api (user track,
// user attributes object, user delete, errors and responses, rate limits).
import type { JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";

const BASE_URL = "https://rest.iad-01.braze.com";

const identifier = (config: Row): "external_id" | "email" => (config.identifier === "email" ? "email" : "external_id");

function idOf(payload: Row, ctx: RestContext): string {
  const name = identifier(ctx.config);
  const value = payload[name];
  if (value === null || value === undefined || value === "") throw new ConnectorError(`The record has no ${name}, which Braze identifies users by.`);
  return String(value);
}

interface MinorError {
  type?: string;
  input_array?: string;
  index?: number;
}

/** Objects Braze named in `errors` fail with its sentence; the rest were queued. */
function trackResults(response: RestResponse, items: unknown[]): RecordResult[] | undefined {
  const errors = (response.body as { errors?: MinorError[] } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const byIndex = new Map(errors.filter((e) => e.input_array === "attributes" && typeof e.index === "number").map((e) => [e.index as number, e]));
  return items.map((_, i) => {
    const error = byIndex.get(i);
    return error ? { ok: false, error: error.type ?? "error", detail: error } : { ok: true };
  });
}

function track(updateExistingOnly: boolean): WriteEndpoint {
  return {
    item: (record, ctx) => {
      idOf(record.payload, ctx);
      return { ...record.payload, _update_existing_only: updateExistingOnly };
    },
    request: (items) => ({ method: "POST", path: "/users/track", body: { attributes: items } }),
    results: (response, items) => trackResults(response, items),
  };
}

/** The user attributes object's standard fields (custom attributes are any other name). */
const STANDARD: Record<string, JsonSchema> = {
  external_id: { type: "string", title: "External user ID" },
  email: { type: ["string", "null"], title: "Email" },
  first_name: { type: ["string", "null"], title: "First name" },
  last_name: { type: ["string", "null"], title: "Last name" },
  phone: { type: ["string", "null"], title: "Phone (E.164)" },
  country: { type: ["string", "null"], title: "Country (ISO-3166-1 alpha-2)" },
  language: { type: ["string", "null"], title: "Language (ISO-639-1)" },
  home_city: { type: ["string", "null"], title: "Home city" },
  gender: { type: ["string", "null"], title: "Gender", enum: ["M", "F", "O", "N", "P", null] },
  dob: { type: ["string", "null"], title: "Date of birth (YYYY-MM-DD)" },
  time_zone: { type: ["string", "null"], title: "Time zone (IANA)" },
  email_subscribe: { type: ["string", "null"], title: "Email subscription", enum: ["opted_in", "subscribed", "unsubscribed", null] },
  push_subscribe: { type: ["string", "null"], title: "Push subscription", enum: ["opted_in", "subscribed", "unsubscribed", null] },
};

export const brazeDestination = defineRestDestination({
  definition: {
    name: "Braze",
    title: "Braze",
    category: "Marketing Automation",
    icon: "/icons/braze.svg",
    documentationUrl: "https://www.braze.com/docs/api/endpoints/user_data/post_user_track/",
    connectionSpecification: restSpecification(
      "Braze",
      BASE_URL,
      {
        api_key: secretField("REST API key", "A REST API key with the users.track permission (and users.delete for mirror mode)."),
        identifier: {
          type: "string",
          title: "Identify users by",
          description: "external_id (your user id) or email.",
          enum: ["external_id", "email"],
          default: "external_id",
          order: 1,
        },
      },
      ["api_key"],
    ),
  },
  // Each Braze instance has its own REST endpoint (rest.iad-01…, rest.fra-01.braze.eu…): base_url picks it.
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "api_key" },
  limits: { maxRecords: 75 },
  // /users/track: 3,000 requests per 3 seconds per workspace.
  rate: { limit: 1000, unit: "second", concurrency: 4 },
  writes: {
    upsert: track(false),
    update: track(true),
    delete: {
      maxRecords: 50,
      item: (record, ctx) => {
        if (identifier(ctx.config) !== "external_id") throw new ConnectorError("Braze deletes users by external_id: identify users by external_id to mirror.");
        return idOf(record.payload, ctx);
      },
      request: (items) => ({ method: "POST", path: "/users/delete", body: { external_ids: items } }),
    },
  },
  check: {
    // An empty track writes nothing: a key Braze accepts gets 400 for the missing data, a bad one 401.
    request: () => ({ method: "POST", path: "/users/track", body: {} }),
    passes: (response) => response.status === 400,
    describe: () => "Connected to Braze; the REST API key was accepted.",
  },
  async discover(ctx) {
    const id = identifier(ctx.config);
    return [{ name: "users", json_schema: { type: "object", properties: STANDARD, additionalProperties: true, required: [id] }, primary_key: [id] }];
  },
  errorText: (response) => {
    const message = (response.body as { message?: string } | undefined)?.message;
    return typeof message === "string" ? message : undefined;
  },
  rateLimitHeaders: ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"],
  retryAfter: (response) => {
    const reset = Number(response.headers["x-ratelimit-reset"]);
    return Number.isFinite(reset) && reset > 0 ? Math.max(1, reset - Date.now() / 1000) : undefined;
  },
});
