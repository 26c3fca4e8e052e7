"use client";
import Link from "next/link";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { relativeTime } from "@/components/common/format";
import { LinkButton } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader, Stat } from "@/components/ui/card";
import { Segmented } from "@/components/ui/segmented";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useSyncs, useWorkspaceActivity, type ReportPoint } from "@/lib/api-client/syncs";
import { LastRun, RunOutcomeBadge, SyncBadge } from "@/components/syncs/run-outcome";
import { syncName } from "@/components/syncs/syncs-list";

type Period = "one_day" | "one_week";
const PERIODS = [
  { value: "one_day", label: "Last 24 hours" },
  { value: "one_week", label: "Last 7 days" },
] as const;
/** How many of the syncs that need attention the card lists; the rest are one click away. */
const ATTENTION_SHOWN = 10;
/** How many syncs' latest runs "Recent runs" shows. */
const RECENT_SHOWN = 8;

function label(period: Period, iso: string) {
  const d = new Date(iso);
  return period === "one_day"
    ? d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" })
    : d.toLocaleDateString("en-GB", { weekday: "short", day: "numeric", timeZone: "UTC" });
}

/** An axis label that fits its column: 320000 → "320k", 1500000 → "1.5M". */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  const [unit, div] = abs >= 1e9 ? ["B", 1e9] : abs >= 1e6 ? ["M", 1e6] : abs >= 1e3 ? ["k", 1e3] : ["", 1];
  const v = n / div;
  return `${Number(v.toFixed(Math.abs(v) < 10 && div > 1 ? 1 : 0))}${unit}`;
}

function ActivityChart({
  title,
  data,
  period,
  unit,
}: {
  title: string;
  data: ReportPoint[];
  period: Period;
  unit: string;
}) {
  const rows = data.map((p) => ({
    t: label(period, p.time_slice),
    Succeeded: p.success_count,
    Failed: p.failed_count,
  }));
  const total = data.reduce((s, p) => s + p.total_count, 0);
  const failed = data.reduce((s, p) => s + p.failed_count, 0);
  return (
    <Card>
      <CardHeader
        title={title}
        description={`${total.toLocaleString()} ${unit}, ${failed.toLocaleString()} failed`}
      />
      <CardBody>
        <div className="h-56" role="img" aria-label={`${title}: ${total} ${unit}, ${failed} failed`}>
          <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 480, height: 224 }}>
            {/* The y-axis keeps its own room (width) for compact labels: a negative margin clipped "320000" to "20000". */}
            <BarChart data={rows} margin={{ top: 4, right: 8, left: 0, bottom: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
              <XAxis dataKey="t" tick={{ fontSize: 11, fill: "#64748b" }} interval="preserveStartEnd" />
              <YAxis
                allowDecimals={false}
                width={44}
                tickFormatter={compactNumber}
                tick={{ fontSize: 11, fill: "#64748b" }}
              />
              <Tooltip />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Bar dataKey="Succeeded" stackId="a" fill="#4f46e5" />
              <Bar dataKey="Failed" stackId="a" fill="#dc2626" radius={[3, 3, 0, 0]} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </CardBody>
    </Card>
  );
}

export function Dashboard() {
  const [period, setPeriod] = useState<Period>("one_day");
  const activity = useWorkspaceActivity(period);
  // The syncs whose latest runs are the workspace's latest, newest first (the server orders the whole
  // workspace by its syncs' latest runs); its total is the number of syncs.
  const syncs = useSyncs({ page: 1, perPage: RECENT_SHOWN, refetch: true, sort: "-last_run_at" });
  // The syncs whose badge says so (syncTruth), judged by the server over the whole workspace: failing,
  // a latest general run that failed or had rows refused, or a run waiting for someone to approve or
  // cancel it. Never for a cancel or a test.
  const needy = useSyncs({ page: 1, perPage: ATTENTION_SHOWN, refetch: true, needsAttention: true });
  const canCreate = useCan("sync", "create");
  const attention = needy.data?.data ?? [];
  const attentionCount = needy.data?.meta?.total_count ?? attention.length;
  const recent = (syncs.data?.data ?? []).filter((s) => s.attributes.last_run);
  const runs = activity.data?.sync_run_triggered ?? [];
  const rows = activity.data?.total_sync_run_rows ?? [];

  return (
    <>
      <PageHeader
        title="Dashboard"
        description="Runs and rows synced across this workspace."
        actions={<Segmented label="Time period" options={PERIODS} value={period} onChange={setPeriod} />}
      />
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat label="Syncs" value={syncs.data?.meta?.total_count ?? "…"} />
        <Stat
          label="Need attention"
          value={
            !needy.data ? (
              "…"
            ) : attentionCount > 0 ? (
              <Link href="/syncs?needs_attention=true" className="hover:underline">
                {attentionCount}
              </Link>
            ) : (
              attentionCount
            )
          }
          tone={attentionCount ? "red" : undefined}
        />
        <Stat label="Runs" value={runs.reduce((s, p) => s + p.total_count, 0).toLocaleString()} />
        <Stat
          label="Rows synced"
          value={rows.reduce((s, p) => s + p.success_count, 0).toLocaleString()}
          tone="green"
        />
      </dl>
      {activity.error ? (
        <ErrorState error={activity.error} onRetry={() => void activity.refetch()} />
      ) : activity.isLoading ? (
        <LoadingState label="Loading activity…" />
      ) : (
        <div className="mb-6 grid grid-cols-1 gap-4 lg:grid-cols-2">
          <ActivityChart title="Runs" data={runs} period={period} unit="runs" />
          <ActivityChart title="Rows" data={rows} period={period} unit="rows" />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card>
          <CardHeader title="Syncs that need attention" />
          <CardBody>
            {needy.isLoading ? (
              <LoadingState />
            ) : needy.error ? (
              <ErrorState error={needy.error} onRetry={() => void needy.refetch()} />
            ) : attention.length === 0 ? (
              <p className="text-sm text-slate-500">All syncs are fine.</p>
            ) : (
              <>
                <ul className="divide-y divide-slate-100">
                  {attention.map((s) => (
                    <li key={s.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                      <Link
                        href={`/syncs/${s.id}`}
                        className="truncate font-medium text-indigo-700 hover:underline"
                      >
                        {syncName(s)}
                      </Link>
                      <span className="flex shrink-0 items-center gap-2">
                        <SyncBadge sync={s.attributes} />
                        {s.attributes.last_outcome && <RunOutcomeBadge run={s.attributes.last_outcome} />}
                      </span>
                    </li>
                  ))}
                </ul>
                {attentionCount > attention.length && (
                  <Link
                    href="/syncs?needs_attention=true"
                    className="mt-2 inline-block text-sm font-medium text-indigo-700 hover:underline"
                  >
                    All {attentionCount.toLocaleString()} syncs that need attention
                  </Link>
                )}
              </>
            )}
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Recent runs" />
          <CardBody>
            {syncs.isLoading ? (
              <LoadingState />
            ) : syncs.error ? (
              <ErrorState error={syncs.error} onRetry={() => void syncs.refetch()} />
            ) : recent.length === 0 ? (
              <EmptyState
                title="No runs yet"
                description="Connect a source and a destination, define a model, then create a sync and run it."
                action={
                  canCreate ? (
                    <LinkButton href="/sources/new" size="sm">
                      Connect a source
                    </LinkButton>
                  ) : null
                }
              />
            ) : (
              <ul className="divide-y divide-slate-100">
                {recent.map((s) => (
                  <li key={s.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                    <Link
                      href={
                        s.attributes.last_run?.id
                          ? `/syncs/${s.id}/runs/${s.attributes.last_run.id}`
                          : `/syncs/${s.id}`
                      }
                      className="truncate font-medium text-indigo-700 hover:underline"
                    >
                      {syncName(s)}
                    </Link>
                    <span className="flex shrink-0 items-center gap-2 text-slate-500">
                      <LastRun sync={s.attributes} when={false} />
                      {relativeTime(s.attributes.last_run?.started_at)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </CardBody>
        </Card>
      </div>
    </>
  );
}
