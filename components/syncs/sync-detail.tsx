"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { relativeTime } from "@/components/common/format";
import { ConnectorIcon } from "@/components/connectors/connector-icon";
import { Badge } from "@/components/ui/badge";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { Button, LinkButton } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import { useCancelSync, useDeleteSync, useEnableSync, useRunSync, useSync } from "@/lib/api-client/syncs";
import { normalizeConfiguration } from "@/lib/sync-rules/mapping";
import { LiveCard } from "./live-card";
import { PlanDialog } from "./plan-dialog";
import { LastRun, RunOutcomeBadge, SyncBadge } from "./run-outcome";
import { RunAfterCard } from "./run-after-card";
import { RunsTable } from "./runs-table";
import { describeSchedule } from "./schedule";
import { SequenceProgress } from "./sequence-progress";
import { SequenceRunButton } from "./sequence-run-button";
import { syncName } from "./syncs-list";
import { TestRowDialog, TestRunResult } from "./test-row";
import { WRITE_MODE_DESCRIPTIONS, WRITE_MODE_LABELS } from "@/lib/sync-rules/write-mode";

export function SyncDetail({ id }: { id: string }) {
  const router = useRouter();
  const sync = useSync(id);
  const enable = useEnableSync(id);
  const run = useRunSync(id);
  const cancel = useCancelSync(id);
  const [testing, setTesting] = useState(false);
  const [planning, setPlanning] = useState(false);
  const [testRunId, setTestRunId] = useState<string | null>(null);
  const [sequenceRunId, setSequenceRunId] = useState<string | null>(null);
  const remove = useDeleteSync();
  const [confirm, setConfirm] = useState<"delete" | "cancel" | null>(null);
  const canUpdate = useCan("sync", "update");
  const canCreate = useCan("sync", "create");
  const canDelete = useCan("sync", "delete");

  if (sync.isLoading) return <LoadingState />;
  if (sync.error || !sync.data) return <ErrorState error={sync.error ?? "Not found"} onRetry={() => void sync.refetch()} />;
  const s = sync.data;
  const a = s.attributes;
  const disabled = a.status === "disabled";
  const active = Boolean(a.last_run && ACTIVE_RUN_STATUSES.has(a.last_run.status ?? ""));
  const mappings = normalizeConfiguration(a.configuration);

  return (
    <>
      <PageHeader
        breadcrumb={<Link href="/syncs" className="hover:underline">Syncs</Link>}
        title={
          <span className="flex items-center gap-3">
            {syncName(s)} <SyncBadge sync={a} />
            {a.last_run && (
              <span className="flex items-center gap-1.5 text-sm font-normal text-slate-500" data-testid="sync-header-last-run">
                last run <RunOutcomeBadge run={a.last_run} />
              </span>
            )}
          </span>
        }
        description={a.description || undefined}
        actions={
          <>
            {canCreate && (
              <Button variant="secondary" onClick={() => setPlanning(true)} title="See what a run would do now, without writing anything">
                Plan
              </Button>
            )}
            {canCreate && (
              <Button onClick={() => run.mutate(undefined)} loading={run.isPending} disabled={disabled || active}>
                Run now
              </Button>
            )}
            {canCreate && <SequenceRunButton syncId={id} disabled={disabled || active} onStarted={setSequenceRunId} />}
            {canCreate && active && (
              <Button variant="secondary" onClick={() => setConfirm("cancel")}>
                Cancel run
              </Button>
            )}
            {canCreate && (
              <Button variant="secondary" onClick={() => setTesting(true)} disabled={disabled || active}>
                Test with one row
              </Button>
            )}
            {canUpdate && (
              <Button variant="secondary" onClick={() => enable.mutate(disabled)} loading={enable.isPending}>
                {disabled ? "Enable" : "Disable"}
              </Button>
            )}
            {canUpdate && <LinkButton variant="secondary" href={`/syncs/${id}/settings`}>Settings</LinkButton>}
            {canDelete && (
              <Button variant="secondary" className="text-red-700" onClick={() => setConfirm("delete")}>
                Delete
              </Button>
            )}
          </>
        }
      />
      {a.last_run?.outcome === "needs_approval" && (
        <div role="alert" className="mb-4 flex flex-wrap items-center justify-between gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <span>Run #{a.last_run.id} stopped before writing anything: it would exceed this sync&apos;s limits. It waits for someone to approve or cancel it.</span>
          <LinkButton size="sm" href={`/syncs/${id}/runs/${a.last_run.id}`}>Review run #{a.last_run.id}</LinkButton>
        </div>
      )}
      {sequenceRunId && <SequenceProgress id={sequenceRunId} onDismiss={() => setSequenceRunId(null)} />}
      {testRunId && <TestRunResult syncId={id} runId={testRunId} onDismiss={() => setTestRunId(null)} />}
      <div className="mb-6 grid grid-cols-1 gap-4 lg:grid-cols-3">
        <Card className="lg:col-span-2">
          <CardHeader title="Route" />
          <CardBody>
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <Link href={`/sources/${a.source_id}`} className="inline-flex items-center gap-2 hover:underline">
                <ConnectorIcon name={a.source?.connector_name ?? "?"} icon={a.source?.icon} className="h-6 w-6" /> {a.source?.name}
              </Link>
              <span aria-hidden>→</span>
              <Link href={`/models/${a.model_id}`} className="hover:underline">
                Model: {a.model?.name}
              </Link>
              <span aria-hidden>→</span>
              <Link href={`/destinations/${a.destination_id}`} className="inline-flex items-center gap-2 hover:underline">
                <ConnectorIcon name={a.destination?.connector_name ?? "?"} icon={a.destination?.icon} className="h-6 w-6" /> {a.destination?.name}
              </Link>
              <Badge>stream {a.stream_name}</Badge>
            </div>
            <h3 className="mb-2 mt-5 text-xs font-semibold uppercase tracking-wide text-slate-500">Mappings</h3>
            {mappings.length === 0 ? (
              <p className="text-sm text-slate-500">None: rows are sent as they are.</p>
            ) : (
              <ul className="divide-y divide-slate-100 rounded-md border border-slate-200 text-sm">
                {mappings.map((m, i) => (
                  <li key={i} className="flex items-center gap-3 px-3 py-2">
                    <Badge tone={m.mapping_type === "template" ? "indigo" : m.mapping_type === "static" ? "amber" : "slate"}>{m.mapping_type}</Badge>
                    <code className="truncate">{m.mapping_type === "static" ? JSON.stringify(m.from) : String(m.from)}</code>
                    <span aria-hidden className="text-slate-400">→</span>
                    <code className="font-semibold">{m.to}</code>
                  </li>
                ))}
              </ul>
            )}
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Schedule" />
          <CardBody>
            <dl className="space-y-3 text-sm">
              <div><dt className="text-slate-500">Mode</dt><dd className="font-medium">{a.sync_mode.replace("_", " ")}{a.cursor_field ? ` (cursor ${a.cursor_field})` : ""}</dd></div>
              <div><dt className="text-slate-500">Write mode</dt><dd className="font-medium" title={WRITE_MODE_DESCRIPTIONS[a.write_mode]}>{WRITE_MODE_LABELS[a.write_mode]}</dd></div>
              <div><dt className="text-slate-500">Detect deletes</dt><dd className="font-medium">{a.detect_deletes ? "On" : a.write_mode === "mirror" ? "On (mirror)" : "Off"}</dd></div>
              <div><dt className="text-slate-500">Runs</dt><dd className="font-medium">{a.live ? "Live: rolling runs, one after another" : describeSchedule(a)}</dd></div>
              <div><dt className="text-slate-500">Next run</dt><dd className="font-medium">{a.next_run_at ? relativeTime(a.next_run_at) : "—"}</dd></div>
              <div><dt className="text-slate-500">Last run</dt><dd className="font-medium"><LastRun sync={a} /></dd></div>
            </dl>
          </CardBody>
        </Card>
      </div>
      {a.live && <LiveCard syncId={id} />}
      <RunAfterCard syncId={id} canUpdate={canUpdate} />
      <h2 className="mb-3 text-lg font-semibold">Runs</h2>
      <RunsTable syncId={id} />
      <PlanDialog
        syncId={id}
        open={planning}
        onClose={() => setPlanning(false)}
        canRun={canCreate && !disabled && !active}
        running={run.isPending}
        onRun={() => run.mutate(undefined, { onSuccess: () => setPlanning(false) })}
      />
      {testing && <TestRowDialog sync={s} open={testing} onClose={() => setTesting(false)} onStarted={setTestRunId} />}
      <ConfirmDialog
        open={confirm === "delete"}
        onClose={() => setConfirm(null)}
        title={`Delete sync “${syncName(s)}”?`}
        description="It stops running; its run history goes with it."
        loading={remove.isPending}
        onConfirm={() => remove.mutate(s, { onSuccess: () => router.push("/syncs"), onSettled: () => setConfirm(null) })}
      />
      <ConfirmDialog
        open={confirm === "cancel"}
        onClose={() => setConfirm(null)}
        title="Cancel the running run?"
        description="Rows already sent stay sent; the rest are sent by the next run."
        confirmLabel="Cancel run"
        loading={cancel.isPending}
        onConfirm={() => cancel.mutate(undefined, { onSettled: () => setConfirm(null) })}
      />
    </>
  );
}
