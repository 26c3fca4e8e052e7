// Mailchimp (Marketing API 3.0): audience members are written with "Batch subscribe or unsubscribe"
// (POST /lists/{list_id}), up to 500 members per request, with the API key over HTTP Basic. The
// answer lists new_members, updated_members and errors (email_address, error, error_code), so only
// the members it refused fail. Upsert sends update_existing: true, which also sets an existing
// member's status: a record must then carry its `status` (no default could re-subscribe someone
// who unsubscribed). Insert mode sends update_existing: false, with `new_member_status` as the
// default status of new members. The API host is the key's data center (…-us6 → us6.api.mailchimp.com).
// Reference: mailchimp.com/developer/marketing/api (lists: batch subscribe, merge fields; errors;
// fundamentals: 10 simultaneous connections).
import type { JsonSchema, Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RecordResult, RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";

const STATUSES = ["subscribed", "unsubscribed", "cleaned", "pending", "transactional"];
/** Member fields of the batch body; any other payload field is a merge field (FNAME, LNAME…). */
const MEMBER_FIELDS = new Set(["email_address", "status", "email_type", "language", "vip"]);

/** https://<dc>.api.mailchimp.com/3.0 from the key's suffix; only a plain data-center name is taken. */
export function mailchimpBaseUrl(config: Row): string {
  const key = typeof config.api_key === "string" ? config.api_key : "";
  const dc = /-([a-z]{2,4}\d{1,3})$/.exec(key)?.[1];
  if (!dc) throw new ConnectorError("The API key does not end with its data center (…-us6): enter the full key, or the API base URL.");
  return `https://${dc}.api.mailchimp.com/3.0`;
}

const listId = (config: Row) => {
  const id = typeof config.list_id === "string" ? config.list_id.trim() : "";
  if (!/^[A-Za-z0-9]+$/.test(id)) throw new ConnectorError(`"${id}" is not a Mailchimp audience id.`);
  return id;
};

function member(record: WriteRecord, status: string | undefined): Row {
  const email = record.payload.email_address;
  if (typeof email !== "string" || email === "") throw new ConnectorError("The record has no email_address, which Mailchimp identifies members by.");
  const chosen = typeof record.payload.status === "string" && record.payload.status !== "" ? record.payload.status : status;
  if (!chosen) throw new ConnectorError("The record has no status: upserts change existing members' status, so each record must say it (subscribed, unsubscribed, …).");
  const out: Row = { email_address: email, status: chosen };
  const merge: Row = {};
  for (const [key, value] of Object.entries(record.payload)) {
    if (key === "email_address" || key === "status" || value === undefined) continue;
    if (MEMBER_FIELDS.has(key)) out[key] = value;
    else merge[key] = value ?? "";
  }
  if (Object.keys(merge).length > 0) out.merge_fields = merge;
  return out;
}

interface BatchError {
  email_address?: string;
  error?: string;
  error_code?: string;
}

/** Each member the answer lists under errors fails with Mailchimp's sentence. */
function batchResults(response: RestResponse, items: unknown[]): RecordResult[] | undefined {
  const errors = (response.body as { errors?: BatchError[] } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const byEmail = new Map(errors.map((e) => [String(e.email_address ?? "").toLowerCase(), e]));
  return items.map((item) => {
    const error = byEmail.get(String((item as Row).email_address).toLowerCase());
    return error ? { ok: false, error: `${error.error ?? "error"}${error.error_code ? ` (${error.error_code})` : ""}`, detail: error } : { ok: true };
  });
}

function batchSubscribe(updateExisting: boolean): WriteEndpoint {
  return {
    item: (record: WriteRecord, ctx: RestContext) => member(record, updateExisting ? undefined : String(ctx.config.new_member_status ?? "subscribed")),
    request: (items, ctx) => ({ method: "POST", path: `/lists/${listId(ctx.config)}`, body: { members: items, update_existing: updateExisting } }),
    results: batchResults,
  };
}

const MERGE_TYPES: Record<string, JsonSchema["type"]> = { number: ["number", "string", "null"] };

export const mailchimpDestination = defineRestDestination({
  definition: {
    name: "Mailchimp",
    title: "Mailchimp",
    category: "Marketing Automation",
    icon: "/icons/mailchimp.svg",
    documentationUrl: "https://mailchimp.com/developer/marketing/api/lists/batch-subscribe-or-unsubscribe/",
    connectionSpecification: restSpecification(
      "Mailchimp",
      { derived: "https://<dc>.api.mailchimp.com/3.0, the data center the API key ends with" },
      {
        api_key: secretField("API key", "A Marketing API key; it ends with its data center (…-us6)."),
        list_id: { type: "string", title: "Audience ID", description: "The audience (list) members are written to.", pattern: "^[A-Za-z0-9]+$", order: 1 },
        new_member_status: {
          type: "string",
          title: "Status of new members (insert mode)",
          description: "Status given to new members when the record has no status. Upserts need the status in each record.",
          enum: ["subscribed", "pending", "unsubscribed", "transactional"],
          default: "subscribed",
          order: 2,
        },
      },
      ["api_key", "list_id"],
    ),
  },
  baseUrl: mailchimpBaseUrl,
  auth: { kind: "basic", field: "api_key", username: "datasync" },
  limits: { maxRecords: 500 },
  // Mailchimp caps simultaneous connections (10), not a rate: ours stay well under it.
  rate: { limit: 10, unit: "second", concurrency: 4 },
  writes: { upsert: batchSubscribe(true), insert: batchSubscribe(false) },
  check: {
    request: (config) => ({ method: "GET", path: `/lists/${listId(config)}`, query: { fields: "id,name" } }),
    describe: (response) => `Connected to Mailchimp audience "${(response.body as { name?: string } | undefined)?.name ?? "?"}".`,
  },
  async discover(ctx) {
    const response = await ctx.get(`/lists/${listId(ctx.config)}/merge-fields`, { count: "1000" });
    const fields = (response.body as { merge_fields?: { tag: string; name?: string; type?: string }[] } | undefined)?.merge_fields ?? [];
    const properties: Record<string, JsonSchema> = {
      email_address: { type: "string", title: "Email address" },
      status: { type: ["string", "null"], title: "Status", enum: [...STATUSES, null] },
      ...Object.fromEntries(fields.map((f) => [f.tag, { type: MERGE_TYPES[f.type ?? ""] ?? ["string", "null"], title: f.name ?? f.tag }])),
    };
    return [{ name: "members", json_schema: { type: "object", properties, required: ["email_address"] }, primary_key: ["email_address"] }];
  },
  errorText: (response) => {
    const body = response.body as { title?: string; detail?: string } | undefined;
    return body?.title ? `${body.title}${body.detail ? `: ${body.detail}` : ""}` : undefined;
  },
  // A 429 means too many simultaneous connections: one second lets the others finish.
  retryAfter: (response) => (response.status === 429 ? 1 : undefined),
});
