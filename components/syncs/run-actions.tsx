"use client";
// The run page's header actions: Cancel for a run that has not ended (a held run is canceled from
// its approval panel, beside Approve), and "Retry failed records" while some of its failed records
// are still undelivered, which starts a new run and opens its page.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { count } from "@/components/common/format";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useCancelRun, useUndeliveredRows } from "@/lib/api-client/runs";
import { useCan } from "@/lib/api-client/settings";
import { useRunSync, useSync } from "@/lib/api-client/syncs";
import type { SyncRunAttributes } from "@/lib/api-client/types";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";

/** Why a person without the right to run syncs sees the run's actions but cannot use them. */
export const VIEWER_REASON = "Your role may view runs but not start, cancel or approve them: ask a Member or an Admin.";

export function RunActions({ syncId, runId, run }: { syncId: string; runId: string; run: SyncRunAttributes }) {
  const canRun = useCan("sync", "create");
  const ended = !ACTIVE_RUN_STATUSES.has(run.status);
  const cancelable = !ended && run.status !== "needs_approval";
  return (
    <>
      {cancelable && <CancelRun syncId={syncId} runId={runId} allowed={canRun} />}
      {ended && run.sync_run_type !== "test" && run.failed_rows > 0 && <RetryFailed syncId={syncId} runId={runId} allowed={canRun} />}
    </>
  );
}

function CancelRun({ syncId, runId, allowed }: { syncId: string; runId: string; allowed: boolean }) {
  const cancel = useCancelRun(syncId, runId);
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={() => setConfirming(true)} disabled={!allowed} title={allowed ? undefined : VIEWER_REASON}>
        Cancel run
      </Button>
      {!allowed && <ViewerNote />}
      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Cancel run #${runId}?`}
        description="Rows already sent stay sent; the rest are sent by the next run."
        confirmLabel="Cancel run"
        loading={cancel.isPending}
        onConfirm={() => cancel.mutate(undefined, { onSettled: () => setConfirming(false) })}
      />
    </>
  );
}

function RetryFailed({ syncId, runId, allowed }: { syncId: string; runId: string; allowed: boolean }) {
  const router = useRouter();
  const undelivered = useUndeliveredRows(syncId, runId, true);
  const sync = useSync(syncId);
  const retry = useRunSync(syncId);
  const left = undelivered.data?.undelivered_rows ?? 0;
  // Delivered since (by a later run or a retry): nothing left to retry.
  if (left === 0) return null;
  const lastRun = sync.data?.attributes.last_run;
  const busy = Boolean(lastRun?.status && ACTIVE_RUN_STATUSES.has(lastRun.status));
  const disabledReason = !allowed ? VIEWER_REASON : sync.data?.attributes.status === "disabled" ? "The sync is disabled: enable it to retry." : busy ? `Run #${lastRun?.id} of this sync is under way: it re-sends them too.` : undefined;
  return (
    <>
      <Button
        onClick={() => retry.mutate(undefined, { onSuccess: (r) => router.push(`/syncs/${syncId}/runs/${r.data.id}`) })}
        loading={retry.isPending}
        disabled={disabledReason !== undefined}
        title={disabledReason ?? `Start a new run: it sends the ${count(left)} records of this run still undelivered again, with whatever else changed.`}
      >
        Retry {count(left)} failed {left === 1 ? "record" : "records"}
      </Button>
      {!allowed && <ViewerNote />}
    </>
  );
}

function ViewerNote() {
  return <p className="basis-full text-right text-xs text-slate-500">{VIEWER_REASON}</p>;
}
