"use client";
import Link from "next/link";
import { count, dateTime, seconds } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-config/statuses";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader, Stat } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useRunSync, useSyncRun } from "@/lib/api-client/syncs";
import { RunOutcomeBadge } from "./run-outcome";
import { RunProgress } from "./run-progress";
import { RunRecords } from "./run-records";

export function RunDetail({ syncId, runId }: { syncId: string; runId: string }) {
  const run = useSyncRun(syncId, runId);
  const active = Boolean(run.data && ACTIVE_RUN_STATUSES.has(run.data.attributes.status));
  const retry = useRunSync(syncId);
  const canRun = useCan("sync", "create");

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
      <RunRecords syncId={syncId} runId={runId} active={active} />
    </>
  );
}
