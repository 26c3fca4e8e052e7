// A run's outcome as a badge ("succeeded with 10 rejected rows", "canceled by Ada · nothing written"),
// and a sync's badge, both from lib/sync-rules/run-outcome.ts (runTruth, syncTruth): the run's page,
// the runs table, the syncs list, the sync's header and the dashboard all say the same words.
import { relativeTime } from "@/components/common/format";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { CANCELED_ERROR, runTruth, syncTruth, type OutcomeFacts, type RunOutcome } from "@/lib/sync-rules/run-outcome";

/** The run fields the API gives a run, or a sync's last_run and last_outcome. */
export interface OutcomeView {
  status: string;
  outcome?: RunOutcome;
  failed_rows?: number;
  canceled_by?: string | null;
  sync_run_type?: string;
  successful_rows?: number;
  approved?: boolean;
  approved_by?: string | null;
  held?: boolean;
  error?: string | null;
}

/** The facts runTruth reads, from what the API gave. */
export const factsOf = (r: OutcomeView): OutcomeFacts => ({
  status: r.status,
  failed_rows: r.failed_rows ?? 0,
  // A sync's run summaries carry no error text: the API's outcome says whether someone stopped it.
  error: r.error ?? (r.outcome === "canceled" ? CANCELED_ERROR : null),
  canceled_by: r.canceled_by ?? null,
  sync_run_type: r.sync_run_type,
  successful_rows: r.successful_rows,
  approved: r.approved,
  approved_by: r.approved_by ?? null,
  held: r.held,
});

/** What every view says about the run. */
export const truthOf = (r: OutcomeView) => runTruth(factsOf(r));

/** The outcome badge; a run still running shows its live status (queued, in progress, …) instead. */
export function RunOutcomeBadge({ run }: { run: OutcomeView }) {
  const truth = truthOf(run);
  if (truth.outcome === "running") return <StatusBadge status={run.status} />;
  return (
    <Badge tone={truth.tone} className="max-w-full">
      <span className="truncate" title={`${truth.text} (status ${run.status})`} data-outcome={truth.outcome} data-testid="run-outcome">
        {truth.text}
      </span>
    </Badge>
  );
}

interface SyncView {
  status: string;
  last_run?: (OutcomeView & { started_at?: string | null; finished_at?: string | null }) | null;
  last_outcome?: OutcomeView | null;
}

/** What the sync's badge says (syncTruth), from what the API gave. */
export const syncTruthOf = (sync: SyncView) =>
  syncTruth({
    status: sync.status,
    last_run: sync.last_run ? factsOf(sync.last_run) : null,
    last_outcome: sync.last_outcome ? factsOf(sync.last_outcome) : null,
  });

/** The sync's badge: its status, or "needs attention" / "needs approval" when its latest run says so. */
export function SyncBadge({ sync }: { sync: SyncView }) {
  const truth = syncTruthOf(sync);
  return (
    <Badge tone={truth.tone}>
      <span title={truth.reason ? `${truth.label}: ${truth.reason}` : truth.label} data-testid="sync-badge">
        {truth.label}
      </span>
    </Badge>
  );
}

/** The sync's last run, the same wherever it shows (list, header, schedule card, dashboard): its latest run of any kind. */
export function LastRun({ sync, when = true }: { sync: SyncView; when?: boolean }) {
  const run = sync.last_run;
  if (!run) return <span className="text-slate-400">Never</span>;
  return (
    <span className="inline-flex flex-col items-start gap-0.5" data-testid="sync-last-run">
      <RunOutcomeBadge run={run} />
      {when && <span className="text-xs font-normal text-slate-500">{relativeTime(run.finished_at ?? run.started_at)}</span>}
    </span>
  );
}
