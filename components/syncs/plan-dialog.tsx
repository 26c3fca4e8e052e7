"use client";
// The sync page's Plan: a dry run of the next run (nothing is written), shown before "Run now".
import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { usePlanSync } from "@/lib/api-client/plans";
import { PlanView } from "./plan-view";

export function PlanDialog({ syncId, open, onClose, onRun, canRun, running }: {
  syncId: string;
  open: boolean;
  onClose: () => void;
  onRun: () => void;
  canRun: boolean;
  running: boolean;
}) {
  const plan = usePlanSync(syncId);
  const { mutate, reset } = plan;
  useEffect(() => {
    if (open) mutate(undefined);
    else reset();
  }, [open, mutate, reset]);
  return (
    <Dialog
      open={open}
      onClose={onClose}
      wide
      title="Plan of the next run"
      description="What a run would do now, computed from the model and what the sync tracks. Nothing was written."
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>Close</Button>
          <Button variant="secondary" onClick={() => mutate(undefined)} loading={plan.isPending}>Plan again</Button>
          <Button onClick={onRun} loading={running} disabled={!canRun || !plan.data}>Run now</Button>
        </>
      }
    >
      {plan.isPending ? <LoadingState label="Reading the model…" /> : plan.error ? <InlineError message={errorMessage(plan.error)} /> : plan.data ? <PlanView plan={plan.data} /> : null}
    </Dialog>
  );
}
