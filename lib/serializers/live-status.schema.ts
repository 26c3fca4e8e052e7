// A live sync's status, as serializeLiveStatus (./live-status.ts) builds it (docs/live-syncs.md).
import { z } from "zod";
import { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { dateTime } from "./resource";

export const liveStatusSchema = z
  .strictObject({
    sync_id: z.number().int(),
    state: z
      .enum(["backfilling", "streaming", "lagging", "stopped"])
      .describe(
        "backfilling: the first read from the slot's snapshot; streaming: changes flow; lagging: streaming, but the oldest change not yet recorded is older than ENGINE_LIVE_LAGGING_SECONDS; stopped: no rolling run (disabled, failed, canceled, or not started yet).",
      ),
    slot: z.string().describe("The replication slot and publication on the source (datasync_live_<sync id>)."),
    lag: z
      .strictObject({
        bytes: z.number().nullable().describe("WAL the slot holds on the source (pg_current_wal_lsn minus its confirmed position); null when the sync has no slot or it could not be read."),
        seconds: z
          .number()
          .nullable()
          .describe("How old the oldest change not yet recorded may be: 0 when the slot holds nothing, else now minus the time up to which every change is recorded; null while backfilling or without a slot."),
        measured_at: dateTime().describe("When the source was asked (answers are kept a few seconds)."),
        error: z.string().nullable().describe("Why the source could not be read (within 3 s); null when it was."),
      })
      .describe("How far the sync trails its source."),
    throughput: z
      .strictObject({
        run_id: z.number().int().describe("The rolling run streaming, or the last one that streamed."),
        changes: z.number().int().describe("Row changes that run read from the source's log."),
        seconds: z.number().describe("How long it has streamed (or streamed)."),
        changes_per_second: z.number(),
      })
      .nullable()
      .describe("Null until the sync's first run streams."),
    run: z
      .strictObject({ id: z.number().int(), status: z.enum(SyncRunStatus) })
      .nullable()
      .describe("The rolling run holding the stream now (an ordinary general run: GET /api/v1/syncs/{id}/sync_runs lists them); null when stopped."),
  })
  .meta({ id: "LiveSyncStatus" });
export type LiveStatusBody = z.infer<typeof liveStatusSchema>;
