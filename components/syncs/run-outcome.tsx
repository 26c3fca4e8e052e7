// A run's derived outcome as a badge ("succeeded with 10 rejected rows", "canceled by Ada"), beside
// the interface's status. Used wherever a run's result shows: runs list and page, sync header,
// syncs list, dashboard.
import { Badge, StatusBadge } from "@/components/ui/badge";
import { describeOutcome, type RunOutcome } from "@/lib/sync-config/run-outcome";

const TONES = {
  succeeded: "green",
  succeeded_with_rejections: "amber",
  failed: "red",
  canceled: "slate",
  running: "blue",
  needs_approval: "amber",
} as const;

export interface OutcomeView {
  status: string;
  outcome?: RunOutcome;
  failed_rows?: number;
  canceled_by?: string | null;
}

/** The outcome badge; a run still running shows its live status (queued, in progress, …) instead. */
export function RunOutcomeBadge({ run }: { run: OutcomeView }) {
  if (!run.outcome || run.outcome === "running") return <StatusBadge status={run.status} />;
  const text = describeOutcome(run.outcome, { failed_rows: run.failed_rows ?? 0, canceled_by: run.canceled_by ?? null });
  return (
    <Badge tone={TONES[run.outcome]} className="max-w-full">
      <span className="truncate" title={`${text} (status ${run.status})`} data-outcome={run.outcome}>
        {text}
      </span>
    </Badge>
  );
}
