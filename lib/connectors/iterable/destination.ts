// Iterable: user profiles are upserted with POST /api/users/bulkUpdate ({users: [{email | userId,
// dataFields, preferUserId, mergeNestedObjects}]}), with a server-side API key in the Api-Key
// header. The answer counts successes and failures and lists the failed users' emails or userIds
// by reason (failedUpdates.invalidEmails, .invalidDataEmails, .forgottenEmails, …), so only those
// records fail. Rate: 10 requests per second per project; a 429 carries no documented wait, so the
// retry waits out the one-second window. Requests stay under Iterable's 4 MB body limit; 1,000 users
// per request is our own cap. Reference: api.iterable.com/api/docs (users: bulkUpdate, getFields).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse } from "../rest-kit/types";

const BASE_URL = "https://api.iterable.com";

const identifier = (config: Row): "email" | "userId" => (config.identifier === "userId" ? "userId" : "email");

/** Why Iterable lists a user under each failedUpdates category. */
const REASONS: Record<string, string> = {
  invalidEmails: "the email address is not valid",
  invalidUserIds: "the userId is not valid",
  notFoundEmails: "no user has this email",
  notFoundUserIds: "no user has this userId",
  forgottenEmails: "the user was forgotten (GDPR): Iterable rejects new data for it",
  forgottenUserIds: "the user was forgotten (GDPR): Iterable rejects new data for it",
  conflictEmails: "the email and the userId belong to different users",
  conflictUserIds: "the email and the userId belong to different users",
  invalidDataEmails: "a data field's type differs from the type the project has for it",
  invalidDataUserIds: "a data field's type differs from the type the project has for it",
  failedEmails: "the update failed",
  failedUserIds: "the update failed",
};

function user(record: WriteRecord, ctx: RestContext): Row {
  const id = identifier(ctx.config);
  const value = record.payload[id];
  if (value === null || value === undefined || value === "") throw new ConnectorError(`The record has no ${id}, which Iterable identifies users by.`);
  const { [id]: _identity, ...dataFields } = record.payload;
  return {
    [id]: String(value),
    dataFields,
    ...(id === "userId" ? { preferUserId: true } : {}),
    ...(ctx.config.merge_nested_objects === true ? { mergeNestedObjects: true } : {}),
  };
}

/** Each user named in failedUpdates (or the older top-level lists) fails with the category's reason. */
function bulkResults(response: RestResponse, items: unknown[], ctx: RestContext): RecordResult[] | undefined {
  const body = response.body as { failCount?: number; failedUpdates?: Record<string, unknown>; invalidEmails?: unknown; invalidUserIds?: unknown } | undefined;
  if (!body || !body.failCount) return undefined;
  const lists: [string, unknown][] = [...Object.entries(body.failedUpdates ?? {}), ["invalidEmails", body.invalidEmails], ["invalidUserIds", body.invalidUserIds]];
  const failures = new Map<string, string>();
  for (const [category, list] of lists) {
    if (!Array.isArray(list)) continue;
    for (const id of list) if (!failures.has(String(id))) failures.set(String(id), category);
  }
  const id = identifier(ctx.config);
  return items.map((item) => {
    const category = failures.get(String((item as Row)[id]));
    if (!category) return { ok: true };
    return { ok: false, error: `${REASONS[category] ?? "the update failed"} (failedUpdates.${category})`, detail: { category, [id]: (item as Row)[id] } };
  });
}

const FIELD_TYPES: Record<string, JsonSchema["type"]> = {
  string: ["string", "null"],
  long: ["integer", "null"],
  double: ["number", "null"],
  boolean: ["boolean", "null"],
  date: ["string", "null"],
  object: ["object", "null"],
  nested: ["array", "null"],
};

export const iterableDestination = defineRestDestination({
  definition: {
    name: "Iterable",
    title: "Iterable",
    category: "Marketing Automation",
    icon: "/icons/iterable.svg",
    documentationUrl: "https://api.iterable.com/api/docs#users_bulkUpdateUser",
    connectionSpecification: restSpecification(
      "Iterable",
      BASE_URL,
      {
        api_key: secretField("API key", "A server-side API key of the project (Integrations → API keys)."),
        identifier: {
          type: "string",
          title: "Identify users by",
          description: "email, or userId (for projects that identify users by userId; sent with preferUserId).",
          enum: ["email", "userId"],
          default: "email",
          order: 1,
        },
        merge_nested_objects: {
          type: "boolean",
          title: "Merge nested objects",
          description: "Merge object fields into the profile's existing objects instead of replacing them (mergeNestedObjects).",
          default: false,
          order: 2,
        },
      },
      ["api_key"],
    ),
  },
  // EU projects: https://api.eu.iterable.com.
  baseUrl: BASE_URL,
  auth: { kind: "header", header: "Api-Key", field: "api_key" },
  limits: { maxRecords: 1000, maxBytes: 4 * 1024 * 1024 },
  rate: { limit: 10, unit: "second", concurrency: 2 },
  writes: {
    upsert: {
      item: user,
      request: (items) => ({ method: "POST", path: "/api/users/bulkUpdate", body: { users: items } }),
      results: bulkResults,
    },
  },
  check: {
    request: () => ({ method: "GET", path: "/api/users/getFields" }),
    describe: () => "Connected to Iterable; the API key can read the project's user fields.",
  },
  async discover(ctx) {
    const response = await ctx.get("/api/users/getFields");
    const fields = (response.body as { fields?: Record<string, string> } | undefined)?.fields ?? {};
    const id = identifier(ctx.config);
    const properties: Record<string, JsonSchema> = { [id]: { type: "string", title: id } };
    for (const [name, type] of Object.entries(fields)) {
      // Nested paths (profile.age) are parts of an object field, mapped through that field.
      if (!name.includes(".") && !(name in properties)) properties[name] = { type: FIELD_TYPES[type] ?? ["string", "null"], title: name };
    }
    return [{ name: "users", json_schema: { type: "object", properties, additionalProperties: true, required: [id] }, primary_key: [id] }];
  },
  errorText: (response) => {
    const body = response.body as { msg?: string; code?: string } | undefined;
    return body?.msg ? `${body.msg}${body.code ? ` (${body.code})` : ""}` : undefined;
  },
  // Per-second limits: one second always clears the window.
  retryAfter: (response) => (response.status === 429 ? 1 : undefined),
});
