"use client";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { relativeTime } from "@/components/common/format";
import { ConnectorIcon } from "@/components/connectors/connector-icon";
import { LinkButton } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Segmented } from "@/components/ui/segmented";
import { EmptyState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useSyncs } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import { LastRun, SyncBadge } from "./run-outcome";
import { describeSchedule } from "./schedule";

const col = createColumnHelper<Sync>();

export const syncName = (s: Sync) => s.attributes.name || `${s.attributes.model?.name ?? "Model"} → ${s.attributes.destination?.name ?? "destination"}`;

type Shown = "all" | "attention";
const SHOWN = [
  { value: "all", label: "All syncs" },
  { value: "attention", label: "Need attention" },
] as const;

export function SyncsList() {
  // The filter lives in the address (?needs_attention=true, the dashboard's link), so a reload, a
  // shared link and the sidebar's "Syncs" all show what the address says. The console's pages are
  // rendered per request (its layout is dynamic), so this needs no Suspense boundary.
  const shown: Shown = useSearchParams().get("needs_attention") === "true" ? "attention" : "all";
  // The page belongs to the filter it was turned under: another filter (a toggle, the sidebar) starts at 1.
  const [at, setAt] = useState({ shown, page: 1 });
  const page = at.shown === shown ? at.page : 1;
  const setPage = (next: number) => setAt({ shown, page: next });
  const query = useSyncs({ page, perPage: 20, refetch: true, needsAttention: shown === "attention" ? true : undefined });
  // Fewer pages than the one shown (syncs fixed or deleted meanwhile): the last one that has rows.
  const pages = query.data?.meta?.total_pages;
  if (pages && page > pages && at.page !== pages) setAt({ shown, page: pages });
  const show = (next: Shown) => {
    const url = new URL(window.location.href);
    if (next === "attention") url.searchParams.set("needs_attention", "true");
    else url.searchParams.delete("needs_attention");
    // Next.js keeps useSearchParams in step with replaceState, without a round trip to the server.
    window.history.replaceState(null, "", url);
  };
  const canCreate = useCan("sync", "create");
  const columns = useMemo(
    () => [
      col.accessor((s) => syncName(s), {
        id: "name",
        header: "Sync",
        meta: { className: "w-[21%]" },
        cell: (info) => (
          <Link href={`/syncs/${info.row.original.id}`} className="font-medium text-indigo-700 hover:underline">
            {info.getValue()}
          </Link>
        ),
      }),
      col.display({
        id: "route",
        header: "Model → destination",
        meta: { className: "w-[23%]" },
        cell: ({ row }) => (
          <span className="inline-flex items-center gap-2 text-slate-600">
            {row.original.attributes.model?.name}
            <span aria-hidden>→</span>
            <ConnectorIcon name={row.original.attributes.destination?.connector_name ?? "?"} icon={row.original.attributes.destination?.icon} className="h-5 w-5" />
            {row.original.attributes.destination?.name}
            <span className="text-xs text-slate-400">/ {row.original.attributes.stream_name}</span>
          </span>
        ),
      }),
      col.accessor((s) => s.attributes.status, { id: "status", header: "Status", meta: { className: "w-[11%]" }, cell: (info) => <SyncBadge sync={info.row.original.attributes} /> }),
      col.display({ id: "schedule", header: "Schedule", meta: { className: "w-[17%]" }, cell: ({ row }) => describeSchedule(row.original.attributes) }),
      col.display({
        id: "last_run",
        header: "Last run",
        meta: { className: "w-[14%]" },
        cell: ({ row }) => <LastRun sync={row.original.attributes} />,
      }),
      col.accessor((s) => s.attributes.next_run_at, { id: "next_run", header: "Next run", meta: { className: "w-[14%]" }, cell: (info) => (info.getValue() ? relativeTime(info.getValue()) : <span className="text-slate-400">—</span>) }),
    ],
    [],
  );
  const create = canCreate ? <LinkButton href="/syncs/new">New sync</LinkButton> : null;
  return (
    <>
      <PageHeader
        title="Syncs"
        description="Each sync sends a model's rows to a destination on a schedule."
        actions={
          <div className="flex items-center gap-3">
            <Segmented label="Which syncs" options={SHOWN} value={shown} onChange={show} />
            {create}
          </div>
        }
      />
      <DataTable
        label="Syncs"
        columns={columns}
        data={query.data?.data}
        isLoading={query.isLoading}
        error={query.error}
        onRetry={() => void query.refetch()}
        pagination={{ page, perPage: 20, totalPages: query.data?.meta?.total_pages, totalCount: query.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(s) => s.id}
        empty={
          shown === "attention" ? (
            <EmptyState title="No sync needs attention" description="Every sync's latest run went through, and none waits for approval." />
          ) : (
            <EmptyState title="No syncs yet" description="Create a sync to send a model's rows to a destination." action={create} />
          )
        }
      />
    </>
  );
}
