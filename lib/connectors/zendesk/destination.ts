// Zendesk Support (API v2): users are upserted in bulk with "Create or update many users"
// (POST /users/create_or_update_many, 100 a request, matched by external_id or email), which answers
// a job status that the connector follows (GET /job_statuses/{id}) for each user's result, in the
// order sent; organizations one at a time with "Create or update organization" (matched by id or
// external_id); tickets one at a time, updated (PUT /tickets/{id}) when the record carries the
// ticket's id or an external_id one ticket has (GET /tickets?external_id=…), else created
// (POST /tickets, the description becoming the first comment). HTTP Basic with
// the configured user name and password (an API token goes as `email/token` + the token). A 429
// carries Retry-After. Reference: developer.zendesk.com/api-reference (users, organizations, tickets,
// job statuses; introduction: security and authentication, errors; rate limits).
import type { Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import type { RestCalls, RestContext, RestRequest, RestResponse, WriteEndpoint } from "../rest-kit/types";
import { settleJob } from "./job-status";
import { ZENDESK_STREAMS, zendeskStreamKind, type ZendeskStreamKind } from "./streams";

const MAX_USERS = 100;
/** Timestamps Zendesk sets itself: mapped or not, they are never sent. */
const READ_ONLY = new Set(["created_at", "updated_at", "last_login_at", "url"]);
const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * https://<subdomain>.zendesk.com/api/v2 from the subdomain as the reference's form asks for it
 * ("https://acme"), or as people also write it (acme, acme.zendesk.com, https://acme.zendesk.com/).
 * Only a plain host label is taken, so the credential cannot be steered to another host.
 */
export function zendeskBaseUrl(config: Row): string {
  const given = typeof config.subdomain === "string" ? config.subdomain.trim() : "";
  const label = given
    .replace(/^https?:\/\//i, "")
    .replace(/\/+$/, "")
    .replace(/\.zendesk\.com$/i, "");
  if (!SUBDOMAIN.test(label)) throw new ConnectorError(`"${given}" is not a Zendesk subdomain: enter it as https://yourcompany (or yourcompany.zendesk.com).`);
  return `https://${label.toLowerCase()}.zendesk.com/api/v2`;
}

const kindOf = (ctx: RestContext): ZendeskStreamKind => {
  const kind = zendeskStreamKind(ctx.stream.name);
  if (!kind) throw new ConnectorError(`Zendesk has no stream "${ctx.stream.name}" here: write to users, tickets or organizations.`);
  return kind;
};

const present = (value: unknown) => value !== null && value !== undefined && value !== "";

/** The payload's writable fields (read-only timestamps left out). */
function fields(record: WriteRecord): Row {
  return Object.fromEntries(Object.entries(record.payload).filter(([key, value]) => value !== undefined && !READ_ONLY.has(key)));
}

function user(record: WriteRecord): Row {
  const out = fields(record);
  if (!present(out.external_id) && !present(out.email)) {
    throw new ConnectorError("The record has no external_id or email, which Zendesk matches users on.");
  }
  return out;
}

function organization(record: WriteRecord): Row {
  const out = fields(record);
  if (!present(out.id) && !present(out.external_id)) {
    throw new ConnectorError("The record has no id or external_id, which Zendesk matches organizations on (without one, every run would create it again).");
  }
  return out;
}

/** Ticket ids by external_id, for the chunk's records that carry an external_id and no id. */
type TicketsByExternalId = Map<string, (number | string)[]>;

async function ticketsByExternalId(ctx: RestContext & RestCalls, records: WriteRecord[]): Promise<TicketsByExternalId> {
  const found: TicketsByExternalId = new Map();
  const wanted = new Set(records.filter((r) => !present(r.payload.id) && present(r.payload.external_id)).map((r) => String(r.payload.external_id)));
  for (const externalId of wanted) {
    const response = await ctx.get("/tickets", { external_id: externalId });
    const tickets = (response.body as { tickets?: { id?: number | string }[] } | undefined)?.tickets ?? [];
    found.set(externalId, tickets.flatMap((t) => (t.id === undefined ? [] : [t.id])));
  }
  return found;
}

/**
 * A ticket: updated when it has an id or its external_id names one ticket (the description is then
 * its first comment already), else created with the description as its first comment.
 */
function ticket(record: WriteRecord, ctx: RestContext): Row {
  const { description, ...rest } = fields(record);
  if (present(rest.id)) return rest;
  const matches = present(rest.external_id) ? ((ctx.prepared as TicketsByExternalId | undefined)?.get(String(rest.external_id)) ?? []) : [];
  if (matches.length > 1) throw new ConnectorError(`${matches.length} tickets have external_id "${String(rest.external_id)}" (${matches.join(", ")}); map the ticket id to say which to update.`);
  if (matches.length === 1) return { id: matches[0], ...rest };
  if (!present(description) && rest.comment === undefined) {
    throw new ConnectorError("The record has no description, which Zendesk needs to create a ticket (it becomes the first comment).");
  }
  return present(description) && rest.comment === undefined ? { ...rest, comment: { body: description } } : rest;
}

function ticketRequest(item: Row | undefined): RestRequest {
  if (!item || !present(item.id)) return { method: "POST", path: "/tickets", body: { ticket: item ?? {} } };
  const { id, ...rest } = item;
  return { method: "PUT", path: `/tickets/${encodeURIComponent(String(id))}`, body: { ticket: rest } };
}

const upsert: WriteEndpoint = {
  async prepare(ctx, records) {
    // Tickets have no upsert: the ones a record names by external_id are looked up first.
    return kindOf(ctx) === "tickets" ? ticketsByExternalId(ctx, records) : undefined;
  },
  item(record, ctx) {
    const kind = kindOf(ctx);
    return kind === "users" ? user(record) : kind === "organizations" ? organization(record) : ticket(record, ctx);
  },
  request(items, ctx) {
    const kind = kindOf(ctx);
    if (kind === "users") return { method: "POST", path: "/users/create_or_update_many", body: { users: items } };
    if (kind === "organizations") return { method: "POST", path: "/organizations/create_or_update", body: { organization: items[0] ?? {} } };
    return ticketRequest(items[0] as Row | undefined);
  },
  async settle(response, items, ctx) {
    // Only users go through a job; organizations and tickets answer for their one record at once.
    return kindOf(ctx) === "users" ? settleJob(response, items, ctx) : undefined;
  },
  // Organizations and tickets have no bulk upsert: one record a request.
  maxRecords: (ctx) => (kindOf(ctx) === "users" ? MAX_USERS : 1),
};

interface ZendeskError {
  error?: string | { title?: string; message?: string };
  description?: string;
  details?: Record<string, { description?: string }[]>;
}

/** "RecordInvalid: Record validation errors (Email: … is invalid)" out of Zendesk's error body. */
export function zendeskErrorText(response: RestResponse): string | undefined {
  const body = response.body as ZendeskError | undefined;
  if (!body || typeof body !== "object") return undefined;
  const error = typeof body.error === "object" ? [body.error.title, body.error.message].filter(Boolean).join(": ") : body.error;
  const details = Object.values(body.details ?? {})
    .flat()
    .map((d) => d?.description)
    .filter(Boolean);
  const text = [error, body.description].filter(Boolean).join(": ");
  return text || details.length > 0 ? `${text}${details.length > 0 ? ` (${details.join("; ")})` : ""}`.trim() : undefined;
}

export const zendeskDestination = defineRestDestination({
  definition: {
    name: "Zendesk",
    title: "Zendesk",
    category: "Customer Support",
    icon: "/icons/zendesk.svg",
    documentationUrl: "https://developer.zendesk.com/api-reference/ticketing/introduction/",
    secretTargetFields: ["subdomain"],
    connectionSpecification: restSpecification(
      "Zendesk",
      { derived: "https://<subdomain>.zendesk.com/api/v2" },
      {
        username: {
          type: "string",
          title: "Username",
          description: "The agent's email address; for an API token, the address followed by /token (you@example.com/token).",
          minLength: 1,
          order: 0,
        },
        password: secretField("Password", "The agent's password, or an API token (Admin Center, Apps and integrations, Zendesk API) when the username ends with /token.", 1),
        subdomain: {
          type: "string",
          title: "Zendesk subdomain (include https://)",
          description: "Your Zendesk address without .zendesk.com, e.g. https://yourcompany.",
          minLength: 1,
          order: 2,
        },
        job_timeout: {
          type: "integer",
          title: "Bulk job wait (seconds)",
          description: "How long to follow each bulk users job for its per-user results before sending its users again.",
          minimum: 5,
          maximum: 900,
          default: 120,
          order: 3,
        },
      },
      ["username", "password", "subdomain"],
    ),
  },
  baseUrl: zendeskBaseUrl,
  auth: { kind: "basic", field: "password", username: { field: "username" } },
  limits: { maxRecords: MAX_USERS },
  // The reference's 700 a minute is Zendesk's largest plan; smaller plans answer 429 with Retry-After.
  rate: { limit: 700, unit: "minute", concurrency: 4 },
  writes: { upsert },
  check: {
    request: () => ({ method: "GET", path: "/users/me" }),
    describe: (response) => {
      const me = (response.body as { user?: { name?: string; role?: string } } | undefined)?.user;
      return me?.name ? `Connected to Zendesk as ${me.name}${me.role ? ` (${me.role})` : ""}.` : "Connected to Zendesk.";
    },
  },
  async discover() {
    return ZENDESK_STREAMS;
  },
  errorText: zendeskErrorText,
});
