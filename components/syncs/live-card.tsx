"use client";
// A live sync's stream on its page: the state, how far it trails its source, how fast it goes. The
// rolling runs are the ordinary runs listed under it (docs/live-syncs.md).
import { count, relativeTime, seconds } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useSyncLive } from "@/lib/api-client/live";

type State = "backfilling" | "streaming" | "lagging" | "stopped";

const STATES: Record<State, { tone: "green" | "amber" | "blue" | "slate"; hint: string }> = {
  backfilling: { tone: "blue", hint: "Reading the whole model once, as of the slot's snapshot; streaming follows." },
  streaming: { tone: "green", hint: "Changes are sent as they commit." },
  lagging: { tone: "amber", hint: "Streaming, but changes wait longer than they should: the source writes faster than the sync sends, or the destination is slow." },
  stopped: { tone: "slate", hint: "No rolling run holds the stream (disabled, failed or canceled). The slot keeps the changes until it runs again." },
};

/** Bytes as the largest unit that keeps a number of at least 1. */
export function bytes(value: number | null): string {
  if (value === null) return "—";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let v = value;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function LiveCard({ syncId }: { syncId: string }) {
  const live = useSyncLive(syncId, true);
  if (live.isLoading) return <LoadingState />;
  if (live.error || !live.data) return <ErrorState error={live.error ?? "Not found"} onRetry={() => void live.refetch()} />;
  const l = live.data;
  const state = STATES[l.state];
  return (
    <section aria-label="Live stream" data-testid="live-card" className="mb-6">
      <Card>
        <CardHeader
          title={
            <span className="flex items-center gap-2">
              Live stream <Badge tone={state.tone}>{l.state}</Badge>
            </span>
          }
        />
        <CardBody>
          <p className="mb-4 text-sm text-slate-600">{state.hint}</p>
          <dl className="grid grid-cols-2 gap-4 text-sm md:grid-cols-4">
            <div>
              <dt className="text-slate-500">Lag</dt>
              <dd className="font-medium" data-testid="live-lag-seconds">{l.lag.seconds === null ? "—" : seconds(l.lag.seconds)}</dd>
            </div>
            <div>
              <dt className="text-slate-500" title="WAL the replication slot holds on the source">Held on the source</dt>
              <dd className="font-medium" data-testid="live-lag-bytes">{bytes(l.lag.bytes)}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Throughput</dt>
              <dd className="font-medium" data-testid="live-throughput">
                {l.throughput ? `${count(l.throughput.changes_per_second)} changes/s` : "—"}
              </dd>
            </div>
            <div>
              <dt className="text-slate-500">Changes this run</dt>
              <dd className="font-medium">{l.throughput ? `${count(l.throughput.changes)} in ${seconds(l.throughput.seconds)} (run #${l.throughput.run_id})` : "—"}</dd>
            </div>
          </dl>
          {l.lag.error && (
            <p role="status" className="mt-3 text-sm text-amber-800">
              The source could not be asked for the lag: {l.lag.error}
            </p>
          )}
          <p className="mt-3 text-xs text-slate-500">
            Slot <code>{l.slot}</code>, measured {relativeTime(l.lag.measured_at)}. Each rolling run is listed under Runs with its counters and records.
          </p>
        </CardBody>
      </Card>
    </section>
  );
}
