"use client";
// Settings → Audit log: who changed what in the workspace, newest first. Filters are the API's own
// (a kind of resource, one resource, one person); a person or a resource in a row narrows to it,
// and a row opens to show the whole entry.
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { dateTime, relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Select } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { AUDIT_PAGE_SIZE, useAuditLogs, type AuditLog, type AuditLogFilters } from "@/lib/api-client/audit";
import { AUDIT_RESOURCE_TYPES } from "@/lib/validation/audit";

const col = createColumnHelper<AuditLog>();

const ACTION_TONES: Record<string, "green" | "red" | "indigo" | "amber" | "slate"> = {
  create: "green",
  delete: "red",
  update: "indigo",
  rotate: "amber",
  approve: "amber",
  cancel: "amber",
};

/** snake_case to words: webhook_subscription → webhook subscription. */
const words = (s: string) => s.replaceAll("_", " ");

/** The metadata's fields in one line; the row's expansion shows them whole. */
export function metadataSummary(metadata: Record<string, unknown>): string {
  return Object.entries(metadata)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : v !== null && typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" · ");
}

const who = (a: AuditLog["attributes"]) => a.user_name || a.user_email || (a.user_id ? `User ${a.user_id}` : "The system");

export function AuditLogPage() {
  const [filters, setFilters] = useState<AuditLogFilters & { user_label?: string }>({});
  const [page, setPage] = useState(1);
  const { user_label: userLabel, ...query } = filters;
  const logs = useAuditLogs(query, page);
  const narrow = (next: typeof filters) => {
    setFilters(next);
    setPage(1);
  };

  const columns = useMemo(
    () => [
      col.accessor((l) => l.attributes.created_at, {
        id: "when",
        header: "When",
        cell: (i) => (
          <time dateTime={i.getValue()} title={dateTime(i.getValue())} className="whitespace-nowrap">
            {relativeTime(i.getValue())}
          </time>
        ),
      }),
      col.accessor((l) => who(l.attributes), {
        id: "who",
        header: "Who",
        cell: ({ row: { original: l }, getValue }) =>
          l.attributes.user_id ? (
            <button
              type="button"
              className="text-left text-indigo-700 hover:underline"
              title={`Only entries by ${l.attributes.user_email ?? getValue()}`}
              onClick={() => narrow({ ...filters, user_id: l.attributes.user_id ?? undefined, user_label: getValue() })}
            >
              {getValue()}
            </button>
          ) : (
            getValue()
          ),
      }),
      col.accessor((l) => l.attributes.action, { id: "action", header: "Action", cell: (i) => <Badge tone={ACTION_TONES[i.getValue()] ?? "slate"}>{i.getValue()}</Badge> }),
      col.accessor((l) => `${words(l.attributes.resource_type)}${l.attributes.resource_id ? ` ${l.attributes.resource_id}` : ""}`, {
        id: "resource",
        header: "Resource",
        cell: ({ row: { original: l }, getValue }) =>
          l.attributes.resource_id ? (
            <button
              type="button"
              className="text-left text-indigo-700 hover:underline"
              title="Only entries about this resource"
              onClick={() => narrow({ ...filters, resource_type: l.attributes.resource_type, resource_id: l.attributes.resource_id ?? undefined })}
            >
              {getValue()}
            </button>
          ) : (
            getValue()
          ),
      }),
      col.accessor((l) => metadataSummary(l.attributes.metadata), {
        id: "details",
        header: "Details",
        cell: ({ row, getValue }) => (
          <button type="button" className="whitespace-normal break-words text-left text-slate-600 hover:text-slate-900" aria-expanded={row.getIsExpanded()} onClick={() => row.toggleExpanded()}>
            {getValue() || "—"}
          </button>
        ),
      }),
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- narrow only reads filters, listed here
    [filters],
  );

  const narrowed = Boolean(filters.resource_type || filters.resource_id || filters.user_id);
  return (
    <>
      <PageHeader title="Audit log" description="Who created, changed or deleted what in this workspace, newest first." />
      <div role="group" aria-label="Filters" className="mb-4 flex flex-wrap items-center gap-3 text-sm">
        <div className="w-56">
          <Select
            aria-label="Resource type"
            value={filters.resource_type ?? ""}
            onChange={(e) => narrow({ ...filters, resource_type: e.target.value || undefined, resource_id: undefined })}
          >
            <option value="">Every kind of resource</option>
            {AUDIT_RESOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {words(t)}
              </option>
            ))}
          </Select>
        </div>
        {filters.resource_id && (
          <Badge tone="indigo">
            {words(filters.resource_type ?? "")} {filters.resource_id}
          </Badge>
        )}
        {filters.user_id && <Badge tone="indigo">by {userLabel ?? `user ${filters.user_id}`}</Badge>}
        {narrowed && (
          <Button size="sm" variant="ghost" onClick={() => narrow({})}>
            Clear filters
          </Button>
        )}
        {logs.data?.meta && (
          <span className="ml-auto text-slate-500" role="status">
            {logs.data.meta.total_count} {logs.data.meta.total_count === 1 ? "entry" : "entries"}
          </span>
        )}
      </div>
      <DataTable
        label="Audit log"
        columns={columns}
        data={logs.data?.data}
        isLoading={logs.isLoading}
        error={logs.error}
        onRetry={() => void logs.refetch()}
        pagination={{ page, perPage: AUDIT_PAGE_SIZE, totalPages: logs.data?.meta?.total_pages, totalCount: logs.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(l) => l.id}
        renderExpanded={(row) => (
          <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded-md bg-white p-2 font-mono text-xs" aria-label="Entry details">
            {JSON.stringify(row.original.attributes, null, 2)}
          </pre>
        )}
        empty={<EmptyState title="Nothing recorded" description={narrowed ? "No entries match these filters." : "Changes to the workspace appear here as they are made."} />}
      />
    </>
  );
}
