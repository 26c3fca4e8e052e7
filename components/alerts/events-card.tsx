"use client";
// Alert events, newest first: what was sent (subject and message) and how each channel took it.
import { useState } from "react";
import { relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useAlertEvents, type AlertEvent } from "@/lib/api-client/alerts";

const deliveryTone = { sent: "green", logged: "amber", failed: "red", pending: "slate", suppressed: "red", unconfirmed: "slate" } as const;

const deliveryText = { logged: "logged (no SMTP)", suppressed: "suppressed (hourly mail limit)", unconfirmed: "not mailed (no confirmed recipient)" } as const;

function EventItem({ event }: { event: AlertEvent }) {
  const e = event.attributes;
  return (
    <li className="px-4 py-3">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={e.kind === "firing" ? "red" : "green"}>{e.kind === "firing" ? "Firing" : "Resolved"}</Badge>
        <span className="font-medium text-slate-900">{e.subject}</span>
        <span className="text-xs text-slate-500">{relativeTime(e.created_at)}</span>
      </div>
      <pre className="mt-2 whitespace-pre-wrap break-words font-sans text-sm text-slate-700">{e.message}</pre>
      <ul className="mt-2 flex flex-wrap gap-2" aria-label="Deliveries">
        {e.deliveries.map((d) => (
          <li key={d.channel_id} title={d.error ?? undefined}>
            {d.error && (d.status === "suppressed" || d.status === "unconfirmed") && <span className="sr-only">{d.error}</span>}
            <Badge tone={deliveryTone[d.status]}>
              {d.channel_name}: {d.status in deliveryText ? deliveryText[d.status as keyof typeof deliveryText] : d.status}
            </Badge>
          </li>
        ))}
      </ul>
    </li>
  );
}

export function AlertEventsCard() {
  const [page, setPage] = useState(1);
  const events = useAlertEvents(page);
  const totalPages = events.data?.meta?.total_pages ?? 1;
  return (
    <Card>
      <CardHeader title="Alert events" description="Every firing and resolved message, with how each channel took it." />
      {events.isLoading ? (
        <LoadingState />
      ) : events.error ? (
        <ErrorState error={events.error} onRetry={() => void events.refetch()} />
      ) : events.data?.data.length ? (
        <>
          <ul className="divide-y divide-slate-100" aria-label="Alert events">
            {events.data.data.map((e) => <EventItem key={e.id} event={e} />)}
          </ul>
          {totalPages > 1 && (
            <div className="flex justify-end gap-2 px-4 py-2">
              <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</Button>
              <Button size="sm" variant="secondary" disabled={page >= totalPages} onClick={() => setPage(page + 1)}>Next</Button>
            </div>
          )}
        </>
      ) : (
        <EmptyState title="No alert events yet" description="When an alert fires or resolves, its message shows here." />
      )}
    </Card>
  );
}
