// The sync record resource, as serializeSyncRecord (./sync-records.ts) builds it.
import { z } from "zod";
import { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";
import { dateTime, resourceSchema } from "./resource";

export const syncRecordAttributesSchema = z.strictObject({
  sync_id: z.number().int(),
  sync_run_id: z.number().int(),
  record: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("The source row as the model read it, column → value; null for a delete (the row left the model) or a stored line that no longer decodes."),
  status: z.enum(SyncRecordStatus),
  action: z.enum(SyncRecordAction),
  error: z.string().nullable(),
  logs: z
    .strictObject({ request: z.string(), response: z.string(), level: z.enum(["info", "error"]) })
    .describe("What was sent and what the destination answered, as text; never a secret."),
  primary_key: z.string(),
  created_at: dateTime(),
  updated_at: dateTime(),
});

export type SyncRecordAttributes = z.infer<typeof syncRecordAttributesSchema>;

export const syncRecordSchema = resourceSchema("sync_records", syncRecordAttributesSchema).meta({ id: "SyncRecord" });
export type SyncRecordResource = z.infer<typeof syncRecordSchema>;

/** One record opened on its own: the list's attributes plus the payload mapped for the destination. */
export const syncRecordDetailAttributesSchema = syncRecordAttributesSchema.extend({
  payload: z.unknown().describe("The payload for the destination: as sent (failed records keep it), or the source row mapped now with the sync's mapping."),
  payload_source: z
    .enum(["sent", "mapped_now"])
    .describe("sent: the payload the run sent; mapped_now: mapped again when opened (a mapping changed since the run shows its new result)."),
  payload_error: z.string().nullable().describe("Why the row could not be mapped now; payload is then null."),
});
export type SyncRecordDetailAttributes = z.infer<typeof syncRecordDetailAttributesSchema>;
export const syncRecordDetailSchema = resourceSchema("sync_records", syncRecordDetailAttributesSchema).meta({ id: "SyncRecordDetail" });
export type SyncRecordDetailResource = z.infer<typeof syncRecordDetailSchema>;
