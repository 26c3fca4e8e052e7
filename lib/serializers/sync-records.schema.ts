// The sync record resource, as serializeSyncRecord (./sync-records.ts) builds it.
import { z } from "zod";
import { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";
import { dateTime, resourceSchema } from "./resource";

export const syncRecordAttributesSchema = z.strictObject({
  sync_id: z.number().int(),
  sync_run_id: z.number().int(),
  record: z.unknown().describe("The row as mapped for the destination."),
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
