"use client";
import Link from "next/link";
import { count, dateTime, seconds } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { Card, CardBody, CardHeader, PageHeader, Stat } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useSyncRun } from "@/lib/api-client/syncs";
import { ApprovalPanel, HeldPlan } from "./approval-panel";
import { RunActions } from "./run-actions";
import { PlanCounts } from "./plan-view";
import { factsOf, RunOutcomeBadge, truthOf } from "./run-outcome";
import { approvalSentence } from "@/lib/sync-rules/run-outcome";
import { RunProgress } from "./run-progress";
import { RunRecords } from "./run-records";
import { WRITE_MODE_LABELS } from "@/lib/sync-rules/write-mode";

export function RunDetail({ syncId, runId }: { syncId: string; runId: string }) {
  const run = useSyncRun(syncId, runId);
  // A run held for approval is not finished, but nothing moves until someone decides.
  const held = run.data?.attributes.status === "needs_approval";
  const active = Boolean(run.data && ACTIVE_RUN_STATUSES.has(run.data.attributes.status)) && !held;
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
        description={`Started ${dateTime(r.started_at)} · finished ${dateTime(r.finished_at)} · ${seconds(r.duration)}${r.write_mode ? ` · write mode ${WRITE_MODE_LABELS[r.write_mode].toLowerCase()}` : ""}`}
        actions={<RunActions syncId={syncId} runId={runId} run={r} />}
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
      {held && <ApprovalPanel syncId={syncId} runId={runId} run={r} canDecide={canRun} />}
      {r.approved_by !== null || (r.plan && r.status !== "needs_approval") ? (
        <Card className="mb-4">
          <CardHeader
            title="Planned before its first write"
            description={approvalSentence(factsOf(r))}
          />
          {r.plan && (
            <CardBody className="space-y-3">
              {r.plan.exceeded.length > 0 && (
                <ul className="list-disc pl-5 text-sm text-amber-900">
                  {r.plan.exceeded.map((e) => (
                    <li key={e}>It {e}.</li>
                  ))}
                </ul>
              )}
              <PlanCounts counts={r.plan.counts} tracked={r.plan.tracked} />
            </CardBody>
          )}
        </Card>
      ) : held && r.plan ? (
        <HeldPlan syncId={syncId} runId={runId} plan={r.plan} />
      ) : null}
      {held ? null : r.error && r.outcome === "canceled" ? (
        <div role="note" className="mb-4 rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
          <p className="font-semibold first-letter:uppercase">{truthOf(r).text}</p>
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
      {(r.write_mode === "update" || r.write_mode === "insert") && (r.skipped_rows ?? 0) > 0 && (
        <p className="-mt-3 mb-6 text-sm text-slate-600">
          Skipped counts unchanged rows and the records {WRITE_MODE_LABELS[r.write_mode].toLowerCase()} mode left unsent on purpose: filter the records
          by status <code>skipped</code> to read why each was skipped.
        </p>
      )}
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
