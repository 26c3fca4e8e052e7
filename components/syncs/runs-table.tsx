"use client";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { count, dateTime, seconds } from "@/components/common/format";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { useSyncRuns } from "@/lib/api-client/syncs";
import type { SyncRun } from "@/lib/api-client/types";
import { RunOutcomeBadge } from "./run-outcome";
import { RunProgress } from "./run-progress";

const col = createColumnHelper<SyncRun>();

export function RunsTable({ syncId }: { syncId: string }) {
  const [page, setPage] = useState(1);
  const runs = useSyncRuns(syncId, page);
  const columns = useMemo(
    () => [
      col.accessor((r) => r.id, {
        id: "id",
        header: "Run",
        meta: { className: "w-[8%]" },
        cell: (info) => (
          <Link href={`/syncs/${syncId}/runs/${info.getValue()}`} className="font-medium text-indigo-700 hover:underline">
            #{info.getValue()}
          </Link>
        ),
      }),
      col.display({
        id: "status",
        header: "Status",
        // Wraps: a live run's progress line stays readable instead of being cut.
        meta: { className: "w-[24%] whitespace-normal" },
        cell: ({ row }) => {
          const r = row.original.attributes;
          // A held run makes no progress until someone decides: its outcome badge says "needs approval".
          return ACTIVE_RUN_STATUSES.has(r.status) && r.status !== "needs_approval" ? (
            <div className="flex flex-col items-start gap-1">
              <StatusBadge status={r.status} />
              <RunProgress run={r} />
            </div>
          ) : (
            <RunOutcomeBadge run={r} />
          );
        },
      }),
      col.accessor((r) => r.attributes.sync_run_type, { id: "type", header: "Type", cell: (i) => <Badge tone={i.getValue() === "test" ? "amber" : "slate"}>{i.getValue()}</Badge> }),
      col.accessor((r) => r.attributes.started_at, { id: "started", header: "Started", meta: { className: "w-[17%]" }, cell: (i) => dateTime(i.getValue()) }),
      col.accessor((r) => r.attributes.duration, { id: "duration", header: "Duration", cell: (i) => seconds(i.getValue()) }),
      col.accessor((r) => r.attributes.total_query_rows, { id: "queried", header: "Queried", cell: (i) => count(i.getValue()) }),
      col.accessor((r) => r.attributes.skipped_rows, { id: "skipped", header: "Skipped", cell: (i) => count(i.getValue()) }),
      col.accessor((r) => r.attributes.successful_rows, { id: "succeeded", header: "Succeeded", cell: (i) => <span className="text-emerald-700">{count(i.getValue())}</span> }),
      col.accessor((r) => r.attributes.failed_rows, {
        id: "failed",
        header: "Failed",
        cell: (i) => <span className={i.getValue() ? "font-semibold text-red-700" : ""}>{count(i.getValue())}</span>,
      }),
    ],
    [syncId],
  );
  return (
    <DataTable
      label="Runs"
      columns={columns}
      data={runs.data?.data}
      isLoading={runs.isLoading}
      error={runs.error}
      onRetry={() => void runs.refetch()}
      pagination={{ page, perPage: 20, totalPages: runs.data?.meta?.total_pages, totalCount: runs.data?.meta?.total_count }}
      onPageChange={setPage}
      getRowId={(r) => r.id}
      empty={<EmptyState title="No runs yet" description="Use “Run now” to start the first run, or wait for the schedule." />}
    />
  );
}
