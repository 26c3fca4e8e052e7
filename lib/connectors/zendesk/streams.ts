// The Zendesk objects the destination writes, as mapping targets: the reference's `tickets` and
// `users` (its field names and types), and `organizations` (ours). Fields not listed here may still
// be mapped (additionalProperties): Zendesk answers for the ones it does not know. The timestamps
// the reference lists are Zendesk's own, so they are left out.
import type { JsonSchema } from "../types";
import type { RestStream } from "../rest-kit/types";

export type ZendeskStreamKind = "users" | "tickets" | "organizations";

/** The stream a name means, in any case ("Users" as the reference's write code spells it). */
export function zendeskStreamKind(name: string): ZendeskStreamKind | undefined {
  const lower = name.toLowerCase();
  return lower === "users" || lower === "tickets" || lower === "organizations" ? lower : undefined;
}

const text = (title: string): JsonSchema => ({ type: ["string", "null"], title });
// Ids are numbers in Zendesk; a source may hold them as text, which the REST kit turns into the number.
const id = (title: string): JsonSchema => ({ type: ["integer", "string", "null"], title });
const tags: JsonSchema = { type: ["array", "null"], title: "Tags", items: { type: "string" } };
const object = (title: string): JsonSchema => ({ type: ["object", "null"], title, additionalProperties: true });

const stream = (name: ZendeskStreamKind, properties: Record<string, JsonSchema>, primaryKey: string): RestStream => ({
  name,
  json_schema: { type: "object", additionalProperties: true, properties },
  primary_key: [primaryKey],
});

export const ZENDESK_STREAMS: RestStream[] = [
  stream(
    "tickets",
    {
      id: id("Ticket ID (set to update that ticket; empty creates one)"),
      subject: text("Subject"),
      description: text("Description (the first comment of a new ticket)"),
      status: text("Status"),
      priority: text("Priority"),
      type: text("Type"),
      requester_id: id("Requester ID"),
      assignee_id: id("Assignee ID"),
      group_id: id("Group ID"),
      organization_id: id("Organization ID"),
      external_id: text("External ID"),
      tags,
      custom_fields: { type: ["array", "null"], title: "Custom fields", items: { type: "object" } },
    },
    "id",
  ),
  stream(
    "users",
    {
      id: id("User ID"),
      name: text("Name"),
      email: text("Email"),
      role: text("Role"),
      external_id: text("External ID"),
      phone: text("Phone"),
      organization_id: id("Organization ID"),
      time_zone: text("Time zone"),
      locale: text("Locale"),
      notes: text("Notes"),
      tags,
      user_fields: object("User fields"),
    },
    "email",
  ),
  stream(
    "organizations",
    {
      id: id("Organization ID"),
      name: text("Name"),
      external_id: text("External ID"),
      details: text("Details"),
      notes: text("Notes"),
      domain_names: { type: ["array", "null"], title: "Domain names", items: { type: "string" } },
      group_id: id("Group ID"),
      shared_tickets: { type: ["boolean", "null"], title: "Shared tickets" },
      shared_comments: { type: ["boolean", "null"], title: "Shared comments" },
      tags,
      organization_fields: object("Organization fields"),
    },
    "external_id",
  ),
];
