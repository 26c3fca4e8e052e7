// A run's records as CSV, with the list's filters. Streamed a window of ids at a time, read only as
// fast as the client takes them, so memory stays one window whatever the run's size. Windows of ids
// rather than `id > last ORDER BY id LIMIT n`: right after a large run the planner's statistics
// still expect a few rows per run and chose a bitmap scan of the whole rest of the run and a sort
// for every page (measured: 200,000 records took 62 s that way); a window bounds each query's work
// whatever the plan.
import "server-only";
import { prisma, queryRows } from "@/lib/db/client";
import { storedRecord } from "@/lib/engine/pass-through/record-columns";
import { Prisma } from "@/lib/generated/prisma/client";
import { csvLine } from "@/lib/serializers/csv";
import type { ExportSyncRecordsQuery } from "@/lib/validation/sync-records";
import { audit } from "./audit";
import { recordRedactor } from "./record-redaction";
import type { AuthContext } from "./auth-context";
import { getSyncRun } from "./sync-runs";

/** Ids per window: at most this many records per query and in memory. */
const WINDOW = 2000;
export const EXPORT_COLUMNS = ["record_id", "primary_key", "status", "action", "error", "created_at", "source_row"] as const;

interface ExportRow {
  id: bigint;
  primary_key: string;
  status: string;
  action: string;
  error: string | null;
  created_at: Date;
  record: Prisma.JsonValue | null;
  row_text: string | null;
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
  const run = await getSyncRun(auth.workspaceId, syncId, syncRunId);
  const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId }, select: { sourceId: true, destinationId: true } });
  const redactText = await recordRedactor([sync.sourceId, sync.destinationId]);
  await audit(auth, "export", "sync_run", syncRunId, { sync_id: syncId, ...filter });
  const encoder = new TextEncoder();
  // The run's id range, from the primary key index (both ends are one index probe).
  const [range] = await queryRows<{ lo: bigint | null; hi: bigint | null }>(
    Prisma.sql`SELECT min(id) AS lo, max(id) AS hi FROM sync_records WHERE sync_run_id = ${syncRunId}`,
  );
  const hi = range?.hi ?? BigInt(0);
  let from = (range?.lo ?? BigInt(1)) - BigInt(1);
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine(EXPORT_COLUMNS)));
        return;
      }
      // Windows without a matching record (other runs' ids, filtered out) are passed over at once.
      while (from < hi) {
        const to = from + BigInt(WINDOW);
        const conditions = [
          Prisma.sql`sync_run_id = ${syncRunId}`,
          Prisma.sql`id > ${from} AND id <= ${to}`,
          ...(filter.status ? [Prisma.sql`status = ${filter.status}::sync_record_status`] : []),
          ...(filter.action ? [Prisma.sql`action = ${filter.action}::sync_record_action`] : []),
          ...(filter.primary_key !== undefined ? [Prisma.sql`primary_key = ${filter.primary_key}`] : []),
        ];
        const rows = await queryRows<ExportRow>(Prisma.sql`
          SELECT id, primary_key, status::text AS status, action::text AS action, error, created_at, record, row_text
            FROM sync_records WHERE ${Prisma.join(conditions, " AND ")} ORDER BY id`);
        from = to;
        if (rows.length === 0) continue;
        let chunk = "";
        for (const r of rows) {
          chunk += csvLine([r.id.toString(), r.primary_key, r.status, r.action, r.error === null ? null : redactText(r.error), r.created_at.toISOString(), storedRecord(r.record, r.row_text, run.recordColumns)]);
        }
        controller.enqueue(encoder.encode(chunk));
        return;
      }
      controller.close();
    },
  });
}
