"use client";
// One record opened: what the source gave, what the destination was (or would be) sent, and what
// it answered. Used in a run's records and in the result of a test run.
import { Badge } from "@/components/ui/badge";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useSyncRecordDetail } from "@/lib/api-client/records";
import type { SyncRecordDetail } from "@/lib/api-client/types";

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre aria-label={label} className="max-h-72 overflow-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-white p-3 font-mono text-xs text-slate-800">
      {typeof value === "string" ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

function Heading({ children }: { children: React.ReactNode }) {
  return <h4 className="mb-1 flex items-center gap-2 text-xs font-semibold uppercase tracking-wide text-slate-500">{children}</h4>;
}

export function RecordDetail({ syncId, runId, recordId }: { syncId: string; runId: string; recordId: string }) {
  const detail = useSyncRecordDetail(syncId, runId, recordId);
  if (detail.isLoading) return <LoadingState label="Loading the record…" />;
  if (detail.error || !detail.data) return <ErrorState error={detail.error ?? "Not found"} onRetry={() => void detail.refetch()} />;
  return <RecordPanels record={detail.data} />;
}

export function RecordPanels({ record }: { record: SyncRecordDetail }) {
  const a = record.attributes;
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-3" data-testid="record-details">
      <div className="min-w-0">
        <Heading>Source row</Heading>
        <JsonBlock label="Source row" value={a.record} />
      </div>
      <div className="min-w-0">
        <Heading>
          Mapped payload
          <Badge tone={a.payload_source === "sent" ? "indigo" : "slate"}>{a.payload_source === "sent" ? "as sent" : "mapped now"}</Badge>
        </Heading>
        {a.payload_error ? (
          <p role="note" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
            The row cannot be mapped: {a.payload_error}
          </p>
        ) : (
          <JsonBlock label="Mapped payload" value={a.payload} />
        )}
        {a.payload_source === "mapped_now" && (
          <p className="mt-1 text-xs text-slate-500">Mapped again from the source row with the sync&apos;s current mapping.</p>
        )}
      </div>
      <div className="min-w-0 space-y-3">
        {a.error && a.status === "skipped" ? (
          <div>
            <Heading>Why it was skipped</Heading>
            <p role="note" className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700">{a.error}</p>
          </div>
        ) : a.error ? (
          <div>
            <Heading>Error</Heading>
            <p role="note" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">{a.error}</p>
          </div>
        ) : null}
        <div>
          <Heading>Request</Heading>
          <JsonBlock label="Request" value={a.logs.request} />
        </div>
        <div>
          <Heading>Response</Heading>
          <JsonBlock label="Response" value={a.logs.response} />
        </div>
      </div>
    </div>
  );
}
