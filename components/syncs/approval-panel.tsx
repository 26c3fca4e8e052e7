"use client";
// A run its sync's blast-radius limits held (needs_approval): the numbers, and Approve / Cancel for
// whoever may run the sync. Approving queues it bound to this plan (plan/approval.ts); canceling drops it.
// HeldPlan shows what it would do: the counts and the sample rows it was held with, as the sync
// page's Plan dialog shows them (plan-view.tsx).
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useApproveRun } from "@/lib/api-client/plans";
import { useCancelRun, useRunPlan } from "@/lib/api-client/runs";
import { useCan } from "@/lib/api-client/settings";
import type { SyncRunAttributes } from "@/lib/api-client/types";
import { PlanCounts, PlanSamples } from "./plan-view";
import { VIEWER_REASON } from "./run-actions";

export function ApprovalPanel({
  syncId,
  runId,
  run,
  canDecide,
}: {
  syncId: string;
  runId: string;
  run: SyncRunAttributes;
  canDecide: boolean;
}) {
  const approve = useApproveRun(syncId);
  const cancel = useCancelRun(syncId, runId);
  const [confirm, setConfirm] = useState<"approve" | "cancel" | null>(null);
  const exceeded = run.plan?.exceeded ?? [];
  return (
    <div
      role="alert"
      aria-label="Needs approval"
      className="mb-4 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      <p className="font-semibold">Stopped before writing anything: this run needs approval</p>
      {exceeded.length > 0 ? (
        <ul className="mt-1 list-disc pl-5" data-testid="approval-reasons">
          {exceeded.map((e) => (
            <li key={e}>It {e}.</li>
          ))}
        </ul>
      ) : (
        <p className="mt-1">{run.error}</p>
      )}
      {run.error?.includes("changed after approval") ? (
        <p className="mt-1" data-testid="approval-changed">
          {run.error}
        </p>
      ) : null}
      <p className="mt-2">
        Approve it to run as planned, or cancel it. The approval holds for these rows only: if the source
        changes so that the run would delete or update more or other rows, it stops again for a new approval.
        No other run of this sync starts while it waits.
      </p>
      {canDecide ? (
        <div className="mt-3 flex gap-2">
          <Button onClick={() => setConfirm("approve")}>Approve run</Button>
          <Button variant="secondary" onClick={() => setConfirm("cancel")}>
            Cancel run
          </Button>
        </div>
      ) : (
        <p className="mt-2 font-medium">{VIEWER_REASON}</p>
      )}
      <ConfirmDialog
        open={confirm === "approve"}
        onClose={() => setConfirm(null)}
        title={`Approve run #${runId}?`}
        description={exceeded.length > 0 ? `It ${exceeded.join("; it ")}.` : undefined}
        confirmLabel="Approve and run"
        loading={approve.isPending}
        onConfirm={() =>
          approve.mutate({ runId, plannedAt: run.plan?.planned_at }, { onSettled: () => setConfirm(null) })
        }
      />
      <ConfirmDialog
        open={confirm === "cancel"}
        onClose={() => setConfirm(null)}
        title={`Cancel run #${runId}?`}
        description="Nothing was written; the run ends canceled and the next one is checked again."
        confirmLabel="Cancel run"
        loading={cancel.isPending}
        onConfirm={() => cancel.mutate(undefined, { onSettled: () => setConfirm(null) })}
      />
    </div>
  );
}

/** What a held run would do: its counts, then the rows it was held with (sample rows are records: their permission). */
export function HeldPlan({
  syncId,
  runId,
  plan,
}: {
  syncId: string;
  runId: string;
  plan: NonNullable<SyncRunAttributes["plan"]>;
}) {
  const canReadRows = useCan("sync_record", "read");
  const kept = useRunPlan(syncId, runId, canReadRows);
  return (
    <Card className="mb-4">
      <CardHeader
        title="What it would do"
        description="Sample rows with the payloads the mapping makes of them, as planned when the run was held."
      />
      <CardBody>
        <div className="space-y-4" data-testid="held-plan">
          <PlanCounts counts={plan.counts} tracked={plan.tracked} />
          {!canReadRows ? null : kept.isLoading ? (
            <LoadingState label="Reading the sample rows…" />
          ) : kept.error ? (
            <InlineError message={errorMessage(kept.error)} />
          ) : kept.data?.samples ? (
            <PlanSamples samples={kept.data.samples} counts={plan.counts} />
          ) : (
            <p className="text-sm text-slate-500">
              This run kept no sample rows (it was held before runs kept them). Plan the sync again to see
              some.
            </p>
          )}
        </div>
      </CardBody>
    </Card>
  );
}
