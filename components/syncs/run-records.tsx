"use client";
// The records of one run: filters (status, action), search by primary key, CSV export of what the
// filters show, and each record opened in place with its source row, mapped payload, request and
// response (components/syncs/record-detail.tsx).
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable } from "@/components/ui/data-table";
import { Field, Input, Select } from "@/components/ui/field";
import { EmptyState, InlineError } from "@/components/ui/states";
import { cn } from "@/components/ui/cn";
import { errorMessage } from "@/lib/api-client/client";
import { useApi } from "@/lib/api-client/provider";
import { downloadRecordsCsv } from "@/lib/api-client/records";
import { useSyncRecords } from "@/lib/api-client/syncs";
import type { SyncRecord } from "@/lib/api-client/types";
import { SYNC_RECORD_ACTIONS, SYNC_RECORD_STATUSES } from "@/lib/validation/sync-records";
import { RecordDetail } from "./record-detail";

const col = createColumnHelper<SyncRecord>();

export function RunRecords({ syncId, runId, active }: { syncId: string; runId: string; active: boolean }) {
  const api = useApi();
  const [status, setStatus] = useState("");
  const [action, setAction] = useState("");
  const [search, setSearch] = useState("");
  const [primaryKey, setPrimaryKey] = useState("");
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const records = useSyncRecords(syncId, runId, { page, status: status || undefined, action: action || undefined, primaryKey: primaryKey || undefined, live: active });

  const columns = useMemo(
    () => [
      col.display({
        id: "expand",
        header: () => <span className="sr-only">Details</span>,
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
        header: "Error or reason",
        // A skipped record's error column says why the write mode skipped it: no failure, so not red.
        cell: (i) => (
          <span className={cn("block whitespace-normal wrap-break-word", i.row.original.attributes.status === "skipped" ? "text-slate-600" : "text-red-700")} title={i.getValue() ?? ""}>
            {i.getValue() ?? ""}
          </span>
        ),
      }),
    ],
    [],
  );

  async function exportCsv() {
    setExporting(true);
    setExportError(null);
    try {
      await downloadRecordsCsv(api, syncId, runId, { status, action, primaryKey });
    } catch (err) {
      setExportError(errorMessage(err));
    } finally {
      setExporting(false);
    }
  }

  const filtered = Boolean(status || action || primaryKey);
  return (
    <section aria-labelledby="records-heading">
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <h2 id="records-heading" className="text-lg font-semibold">Records</h2>
        <div className="flex flex-wrap items-end gap-3">
          <form
            role="search"
            className="flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              setPrimaryKey(search.trim());
              setPage(1);
            }}
          >
            <Field label="Primary key" className="w-48">
              {(p) => <Input {...p} type="search" placeholder="Exact value" value={search} onChange={(e) => setSearch(e.target.value)} />}
            </Field>
            <Button type="submit" variant="secondary">Search</Button>
            {primaryKey && (
              <Button variant="ghost" onClick={() => { setSearch(""); setPrimaryKey(""); setPage(1); }}>
                Clear
              </Button>
            )}
          </form>
          <Field label="Status" className="w-36">
            {(p) => (
              <Select {...p} value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
                <option value="">All</option>
                {SYNC_RECORD_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
              </Select>
            )}
          </Field>
          <Field label="Action" className="w-40">
            {(p) => (
              <Select {...p} value={action} onChange={(e) => { setAction(e.target.value); setPage(1); }}>
                <option value="">All</option>
                {SYNC_RECORD_ACTIONS.map((s) => <option key={s} value={s}>{s.replace("destination_", "")}</option>)}
              </Select>
            )}
          </Field>
          <Button variant="secondary" onClick={() => void exportCsv()} loading={exporting} title="Download the records these filters show, as CSV">
            Export CSV
          </Button>
        </div>
      </div>
      <InlineError message={exportError} />
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
        renderExpanded={(row) => <RecordDetail syncId={syncId} runId={runId} recordId={row.original.id} />}
        empty={
          <EmptyState
            title={primaryKey ? `No record with primary key “${primaryKey}”` : filtered ? "No records match these filters" : "No records"}
            description={
              primaryKey
                ? "The search matches the whole key exactly. Rows that did not change since the last run are skipped and leave no record."
                : active
                  ? "Records appear as the run sends rows."
                  : "This run sent no rows (unchanged rows are skipped)."
            }
          />
        }
      />
    </section>
  );
}
