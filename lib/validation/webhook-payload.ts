// The JSON body of a webhook delivery (docs/webhooks.md), stored in webhook_deliveries.payload: one
// schema for what the engine builds (lib/engine/webhooks/payload.ts), what the API documents as a
// delivery's `payload`, and the parse wherever the stored body is read back (API, redelivery, send).
// Loose objects: a member added later reads back as itself, in its place.
import { z } from "zod";
import { SyncRunStatus, SyncRunType } from "@/lib/generated/prisma/enums";
import { RUN_OUTCOMES } from "@/lib/sync-rules/run-outcome";
import { PING_EVENT, WEBHOOK_EVENTS } from "@/lib/sync-rules/webhook-events";
import { parseStored } from "./stored";

const count = () => z.number().int();
const isoOrNull = () => z.string().nullable().describe("ISO 8601, UTC; null until it happened.");

/** A run event's data: the run's ids, status, outcome and counters, named as in the sync run resource. */
export const runEventDataSchema = z.looseObject({
  sync_id: z.number().int(),
  sync_run_id: z.number().int(),
  status: z.enum(SyncRunStatus),
  outcome: z.enum(RUN_OUTCOMES),
  sync_run_type: z.enum(SyncRunType),
  started_at: isoOrNull(),
  finished_at: isoOrNull(),
  error: z.string().nullable(),
  total_query_rows: count(),
  total_rows: count(),
  skipped_rows: count(),
  successful_rows: count(),
  failed_rows: count(),
  duplicate_rows: count(),
  processed_rows: count(),
});

/** The test button's data. */
export const pingDataSchema = z.looseObject({
  subscription_id: z.number().int(),
  message: z.string(),
});

export const webhookPayloadSchema = z
  .looseObject({
    id: z.string().describe("The event's id (evt_…), the same in every attempt and redelivery."),
    type: z.enum([...WEBHOOK_EVENTS, PING_EVENT]),
    created_at: z.string().describe("When the event happened, ISO 8601 UTC."),
    workspace_id: z.number().int(),
    data: z.union([runEventDataSchema, pingDataSchema]),
  })
  .meta({ id: "WebhookPayload", description: "The JSON body sent (docs/webhooks.md)." });
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;

/** A stored delivery body, checked instead of cast (`deliveryId` is named in the error). */
export const parseWebhookPayload = (json: unknown, deliveryId: number): WebhookPayload =>
  parseStored(webhookPayloadSchema, json, `payload of webhook delivery ${deliveryId}`);
