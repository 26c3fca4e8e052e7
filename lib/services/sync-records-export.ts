// A run's records as CSV, with the list's filters. Streamed a page at a time (keyset on the run's
// (sync_run_id, id) or (sync_run_id, status, id) index), so memory stays one page whatever the run's
// size, and the pages are only read as fast as the client takes them.
import "server-only";
import { prisma, queryRows } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { csvLine } from "@/lib/serializers/csv";
import type { ExportSyncRecordsQuery } from "@/lib/validation/sync-records";
import { audit } from "./audit";
import { recordRedactor } from "./record-redaction";
import type { AuthContext } from "./auth-context";
import { getSyncRun } from "./sync-runs";

const PAGE = 1000;
export const EXPORT_COLUMNS = ["record_id", "primary_key", "status", "action", "error", "created_at", "source_row"] as const;

interface ExportRow {
  id: bigint;
  primary_key: string;
  status: string;
  action: string;
  error: string | null;
  created_at: Date;
  record: Prisma.JsonValue;
}

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
  await getSyncRun(auth.workspaceId, syncId, syncRunId);
  const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId }, select: { sourceId: true, destinationId: true } });
  const redactText = await recordRedactor([sync.sourceId, sync.destinationId]);
  await audit(auth, "export", "sync_run", syncRunId, { sync_id: syncId, ...filter });
  const encoder = new TextEncoder();
  let afterId = BigInt(0);
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine(EXPORT_COLUMNS)));
        return;
      }
      if (done) return;
      const conditions = [
        Prisma.sql`sync_run_id = ${syncRunId}`,
        Prisma.sql`id > ${afterId}`,
        ...(filter.status ? [Prisma.sql`status = ${filter.status}::sync_record_status`] : []),
        ...(filter.action ? [Prisma.sql`action = ${filter.action}::sync_record_action`] : []),
        ...(filter.primary_key !== undefined ? [Prisma.sql`primary_key = ${filter.primary_key}`] : []),
      ];
      const rows = await queryRows<ExportRow>(Prisma.sql`
        SELECT id, primary_key, status::text AS status, action::text AS action, error, created_at, record
          FROM sync_records WHERE ${Prisma.join(conditions, " AND ")} ORDER BY id LIMIT ${PAGE}`);
      if (rows.length > 0) {
        afterId = rows[rows.length - 1].id;
        let chunk = "";
        for (const r of rows) {
          chunk += csvLine([r.id.toString(), r.primary_key, r.status, r.action, r.error === null ? null : redactText(r.error), r.created_at.toISOString(), r.record]);
        }
        controller.enqueue(encoder.encode(chunk));
      }
      if (rows.length < PAGE) {
        done = true;
        controller.close();
      }
    },
  });
}
