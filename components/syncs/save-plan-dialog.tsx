"use client";
// Before a settings section that changes what a run sends is saved (the mapping, the mode): the plan
// of the next run as if it were saved. A new mapping, template or null policy changes every row's
// fingerprint, so the next run re-sends every row it delivered; the person sees the counts (and
// whether the guard would hold the run) and saves, or goes back to editing. Nothing is saved or
// written until they confirm.
import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { usePlanChanges, type ProposedChanges } from "@/lib/api-client/plans";
import { PlanView } from "./plan-view";

export function SavePlanDialog({ syncId, changes, what, onSave, onClose, saving }: {
  syncId: string;
  /** The changes to plan with; null: the dialog is closed. */
  changes: ProposedChanges | null;
  /** What is being saved, for the button: "mapping". */
  what: string;
  onSave: () => void;
  onClose: () => void;
  saving: boolean;
}) {
  const plan = usePlanChanges(syncId);
  const { mutate, reset, cancel } = plan;
  // Back to editing (changes null) or leaving the page aborts a plan still being computed.
  useEffect(() => {
    if (changes) mutate(changes);
    else {
      cancel();
      reset();
    }
  }, [changes, mutate, reset, cancel]);
  useEffect(() => cancel, [cancel]);
  const updates = plan.data ? plan.data.counts.update : null;
  return (
    <Dialog
      open={changes !== null}
      onClose={onClose}
      wide
      title={`Before you save the ${what}`}
      description="What the next run will send once this is saved, computed from the model and what the sync delivered. Nothing is saved or written yet."
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>Back to editing</Button>
          {/* A plan that cannot be computed (the model is unreachable) must not block a save: the run's guard still checks it. */}
          <Button onClick={onSave} loading={saving} disabled={plan.isPending}>
            {plan.error ? `Save ${what} without a plan` : `Save ${what}`}
          </Button>
        </>
      }
    >
      {plan.isPending ? (
        <LoadingState label="Reading the model…" />
      ) : plan.error ? (
        <InlineError message={`The plan could not be computed: ${errorMessage(plan.error)}`} />
      ) : plan.data ? (
        <div className="space-y-3">
          {updates !== null && updates > 0 && (
            <p className="text-sm text-slate-700" data-testid="save-plan-summary">
              The next run will update {updates.toLocaleString("en-US")} of the {plan.data.tracked.toLocaleString("en-US")} rows this sync delivered.
            </p>
          )}
          <PlanView plan={plan.data} />
        </div>
      ) : null}
    </Dialog>
  );
}
