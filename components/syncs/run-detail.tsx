"use client";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { count, dateTime, seconds } from "@/components/common/format";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-config/statuses";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader, Stat } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Field, Select } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useRunSync, useSyncRecords, useSyncRun } from "@/lib/api-client/syncs";
import type { SyncRecord } from "@/lib/api-client/types";
import { RunOutcomeBadge } from "./run-outcome";
import { RunProgress } from "./run-progress";

const col = createColumnHelper<SyncRecord>();
const STATUSES = ["pending", "success", "failed"];
const ACTIONS = ["destination_insert", "destination_update", "destination_delete"];

function Json({ value }: { value: unknown }) {
  return (
    <pre className="max-h-72 overflow-auto rounded-md border border-slate-200 bg-white p-3 font-mono text-xs text-slate-800">
      {typeof value === "string" ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function RunDetail({ syncId, runId }: { syncId: string; runId: string }) {
  const run = useSyncRun(syncId, runId);
  const [status, setStatus] = useState("");
  const [action, setAction] = useState("");
  const [page, setPage] = useState(1);
  const active = Boolean(run.data && ACTIVE_RUN_STATUSES.has(run.data.attributes.status));
  const records = useSyncRecords(syncId, runId, { page, status: status || undefined, action: action || undefined, live: active });
  const retry = useRunSync(syncId);
  const canRun = useCan("sync", "create");

  const columns = useMemo(
    () => [
      col.display({
        id: "expand",
        header: () => <span className="sr-only">Details</span>,
        meta: { className: "w-12" },
        cell: ({ row }) => (
          <button
            type="button"
            onClick={row.getToggleExpandedHandler()}
            aria-expanded={row.getIsExpanded()}
            aria-label={`${row.getIsExpanded() ? "Hide" : "Show"} details of record ${row.original.attributes.primary_key ?? row.original.id}`}
            className="rounded px-1 text-slate-500 hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          >
            {row.getIsExpanded() ? "▾" : "▸"}
          </button>
        ),
      }),
      col.accessor((r) => r.attributes.primary_key ?? r.id, { id: "key", header: "Primary key", cell: (i) => <code>{String(i.getValue())}</code> }),
      col.accessor((r) => r.attributes.status, { id: "status", header: "Status", cell: (i) => <StatusBadge status={i.getValue()} /> }),
      col.accessor((r) => r.attributes.action, { id: "action", header: "Action", cell: (i) => <Badge>{i.getValue()?.replace("destination_", "")}</Badge> }),
      col.accessor((r) => r.attributes.error, {
        id: "error",
        header: "Error",
        meta: { className: "w-[45%]" },
        cell: (i) => <span className="block max-w-md truncate text-red-700" title={i.getValue() ?? ""}>{i.getValue() ?? ""}</span>,
      }),
    ],
    [],
  );

  if (run.isLoading) return <LoadingState />;
  if (run.error || !run.data) return <ErrorState error={run.error ?? "Not found"} onRetry={() => void run.refetch()} />;
  const r = run.data.attributes;
  const timings = r.timings ?? {};
  // The engine records milliseconds per phase.
  const parts = (["query", "diff", "load", "wait", "record"] as const).map((k) => ({ k, v: Number((timings as Record<string, number>)[k] ?? 0) / 1000 }));
  const totalTime = parts.reduce((s, p) => s + p.v, 0);
  const colors = { query: "bg-sky-500", diff: "bg-violet-500", load: "bg-emerald-500", wait: "bg-amber-400", record: "bg-slate-400" };

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/syncs" className="hover:underline">Syncs</Link> /{" "}
            <Link href={`/syncs/${syncId}`} className="hover:underline">Sync {syncId}</Link>
          </>
        }
        title={
          <span className="flex items-center gap-3">
            Run #{runId} <RunOutcomeBadge run={r} /> {r.sync_run_type === "test" && <Badge tone="amber">test</Badge>}
          </span>
        }
        description={`Started ${dateTime(r.started_at)} · finished ${dateTime(r.finished_at)} · ${seconds(r.duration)}`}
        actions={
          canRun && !active && (r.failed_rows ?? 0) > 0 ? (
            <Button onClick={() => retry.mutate(undefined)} loading={retry.isPending}>
              Retry failed records
            </Button>
          ) : null
        }
      />
      {active && (
        <Card className="mb-4">
          <CardBody>
            <RunProgress run={r} />
            {r.waiting_until && (
              <p className="mt-2 text-sm text-amber-700">Waiting for the destination&apos;s rate limit until {dateTime(r.waiting_until)}; the run resumes then.</p>
            )}
          </CardBody>
        </Card>
      )}
      {r.error && r.outcome === "canceled" ? (
        <div role="note" className="mb-4 rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
          <p className="font-semibold">{r.canceled_by ? `Canceled by ${r.canceled_by}` : "Canceled"}</p>
          <p className="mt-1">{r.error}</p>
        </div>
      ) : r.error ? (
        <div role="alert" className="mb-4 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          <p className="font-semibold">The run failed</p>
          <p className="mt-1">{r.error}</p>
        </div>
      ) : null}
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-5">
        <Stat label="Queried" value={count(r.total_query_rows)} />
        <Stat label="Skipped" value={count(r.skipped_rows)} />
        <Stat label="Succeeded" value={count(r.successful_rows)} tone="green" />
        <Stat label="Failed" value={count(r.failed_rows)} tone={(r.failed_rows ?? 0) > 0 ? "red" : undefined} />
        <Stat label="Duration" value={seconds(r.duration)} />
      </dl>
      <Card className="mb-6">
        <CardHeader title="Where the time went" />
        <CardBody>
          {totalTime > 0 ? (
            <>
              <div className="flex h-3 w-full overflow-hidden rounded-full bg-slate-100" role="img" aria-label={parts.map((p) => `${p.k} ${seconds(p.v)}`).join(", ")}>
                {parts.map((p) => (p.v > 0 ? <div key={p.k} className={colors[p.k]} style={{ width: `${(p.v / totalTime) * 100}%` }} /> : null))}
              </div>
              <ul className="mt-3 flex flex-wrap gap-5 text-sm">
                {parts.map((p) => (
                  <li key={p.k} className="flex items-center gap-2">
                    <span className={`h-2.5 w-2.5 rounded-full ${colors[p.k]}`} aria-hidden />
                    <span className="capitalize text-slate-600">{p.k === "wait" ? "waiting (rate limit)" : p.k === "record" ? "recording" : p.k}</span>
                    <span className="font-medium tabular-nums">{seconds(p.v)}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p className="text-sm text-slate-500">No timings recorded yet.</p>
          )}
        </CardBody>
      </Card>
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <h2 className="text-lg font-semibold">Records</h2>
        <div className="flex gap-3">
          <Field label="Status" className="w-40">
            {(p) => (
              <Select {...p} value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
                <option value="">All</option>
                {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
              </Select>
            )}
          </Field>
          <Field label="Action" className="w-48">
            {(p) => (
              <Select {...p} value={action} onChange={(e) => { setAction(e.target.value); setPage(1); }}>
                <option value="">All</option>
                {ACTIONS.map((s) => <option key={s} value={s}>{s.replace("destination_", "")}</option>)}
              </Select>
            )}
          </Field>
        </div>
      </div>
      <DataTable
        label="Records"
        columns={columns}
        data={records.data?.data}
        isLoading={records.isLoading}
        error={records.error}
        onRetry={() => void records.refetch()}
        pagination={{ page, perPage: 25, totalPages: records.data?.meta?.total_pages, totalCount: records.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(rec) => rec.id}
        renderExpanded={(row) => {
          const rec = row.original.attributes;
          return (
            <div className="grid grid-cols-1 gap-4 lg:grid-cols-2" data-testid="record-details">
              <div>
                <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Source row</h4>
                <Json value={rec.record} />
              </div>
              <div className="space-y-3">
                {rec.error && (
                  <div>
                    <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Error</h4>
                    <p role="note" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">{rec.error}</p>
                  </div>
                )}
                {rec.logs?.request !== undefined && (
                  <div>
                    <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Request</h4>
                    <Json value={rec.logs.request} />
                  </div>
                )}
                {rec.logs?.response !== undefined && (
                  <div>
                    <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Response</h4>
                    <Json value={rec.logs.response} />
                  </div>
                )}
                {!rec.error && !rec.logs && <p className="text-sm text-slate-500">No error and no request log for this record.</p>}
              </div>
            </div>
          );
        }}
        empty={<EmptyState title={status || action ? "No records match these filters" : "No records"} description={active ? "Records appear as the run sends rows." : "This run sent no rows (unchanged rows are skipped)."} />}
      />
    </>
  );
}
