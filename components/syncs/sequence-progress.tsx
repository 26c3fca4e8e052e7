"use client";
// A sequence run's steps as they move: each sync's state, why it waits or did not run, and its run.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ErrorState, LoadingState, Spinner } from "@/components/ui/states";
import { FINAL_SEQUENCE_STATUSES, useSequenceRun, type SequenceRunStep } from "@/lib/api-client/sequences";

type Tone = React.ComponentProps<typeof Badge>["tone"];

const TONES: Record<string, Tone> = {
  success: "green",
  failed: "red",
  needs_approval: "amber",
  not_run: "amber",
  running: "blue",
  waiting: "slate",
  skipped: "slate",
};

const label = (state: string) => state.replace(/_/g, " ");

function StepRow({ step }: { step: SequenceRunStep }) {
  return (
    <li className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm" data-testid={`sequence-step-${step.sync_id}`}>
      <Link href={`/syncs/${step.sync_id}`} className="font-medium hover:underline">{step.sync_name}</Link>
      <Badge tone={TONES[step.state]}>{label(step.state)}</Badge>
      {step.reason && <span className="text-slate-500">{step.reason}</span>}
      {step.sync_run_id !== null && (
        <Link href={`/syncs/${step.sync_id}/runs/${step.sync_run_id}`} className="ml-auto text-indigo-700 hover:underline">
          Run #{step.sync_run_id}
        </Link>
      )}
    </li>
  );
}

export function SequenceProgress({ id, onDismiss }: { id: string; onDismiss: () => void }) {
  const sequence = useSequenceRun(id);
  const a = sequence.data?.attributes;
  const final = a ? FINAL_SEQUENCE_STATUSES.has(a.status) : false;
  return (
    <Card className="mb-6">
      <section aria-label="Sequence run">
        <CardHeader
          title={
            <span className="flex items-center gap-2">
              Sequence run #{id}
              {a && <Badge tone={TONES[a.status]}>{label(a.status)}</Badge>}
              {a && !final && <Spinner className="h-4 w-4" label="Updating" />}
            </span>
          }
          description="This sync, then each sync after it as its upstreams succeed."
          actions={final ? <Button variant="ghost" size="sm" onClick={onDismiss}>Dismiss</Button> : null}
        />
        <CardBody className="p-0">
          {sequence.isLoading ? (
            <LoadingState />
          ) : !a ? (
            <ErrorState error={sequence.error ?? "Not found"} onRetry={() => void sequence.refetch()} />
          ) : (
            <ol className="divide-y divide-slate-100">
              {a.steps.map((step) => (
                <StepRow key={step.sync_id} step={step} />
              ))}
            </ol>
          )}
        </CardBody>
      </section>
    </Card>
  );
}
