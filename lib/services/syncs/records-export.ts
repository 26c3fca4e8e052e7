// A run's records as CSV, with the list's filters. Streamed a few record blocks at a time (lib/engine/records),
// read only as fast as the client takes them, so memory stays a few blocks whatever the run's size.
import "server-only";
import { prisma } from "@/lib/db/client";
import { blockHeads, readAll } from "@/lib/engine";
import { csvLine } from "@/lib/serializers/csv";
import type { ExportSyncRecordsQuery } from "@/lib/validation/sync-records";
import { audit } from "../insights/audit";
import { recordRedactor } from "./record-redaction";
import type { AuthContext } from "../accounts/auth-context";
import { getSyncRun } from "./runs";
import { recordFilterOf } from "./records";

export const EXPORT_COLUMNS = ["record_id", "primary_key", "status", "action", "error", "created_at", "source_row"] as const;

/** The file name says what is in it: `sync-3-run-12-records-failed.csv`. */
export function exportFileName(syncId: number, runId: number, filter: ExportSyncRecordsQuery): string {
  const parts = [filter.status, filter.action?.replace("destination_", ""), filter.primary_key !== undefined ? "key" : undefined].filter(Boolean);
  return `sync-${syncId}-run-${runId}-records${parts.length ? `-${parts.join("-")}` : ""}.csv`;
}

/** 404 before the first byte when the run is not this workspace's; then a stream of CSV lines. */
export async function exportSyncRecords(
  auth: Pick<AuthContext, "workspaceId" | "user">,
  syncId: number,
  syncRunId: number,
  filter: ExportSyncRecordsQuery,
): Promise<ReadableStream<Uint8Array>> {
  const run = await getSyncRun(auth.workspaceId, syncId, syncRunId);
  const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId }, select: { sourceId: true, destinationId: true } });
  const redactText = await recordRedactor([sync.sourceId, sync.destinationId]);
  await audit(auth, "export", "sync_run", syncRunId, { sync_id: syncId, ...filter });
  const encoder = new TextEncoder();
  const options = { runId: syncRunId, recordColumns: run.recordColumns, filter: recordFilterOf(filter) };
  const batches = readAll(await blockHeads(syncRunId, options.filter), options);
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine(EXPORT_COLUMNS)));
        return;
      }
      const next = await batches.next();
      if (!next.done) {
        let chunk = "";
        for (const r of next.value) {
          chunk += csvLine([r.id.toString(), r.primaryKey, r.status, r.action, r.error === null ? null : redactText(r.error), r.createdAt.toISOString(), r.record]);
        }
        controller.enqueue(encoder.encode(chunk));
        return;
      }
      controller.close();
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}
