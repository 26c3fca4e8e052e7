"use client";
// "Run with the syncs after it": shown only when some sync runs after this one (else it is "Run now").
import { Button } from "@/components/ui/button";
import { useRunAfter, useStartSequenceRun } from "@/lib/api-client/sequences";

export function SequenceRunButton({ syncId, disabled, onStarted }: { syncId: string; disabled: boolean; onStarted: (sequenceRunId: string) => void }) {
  const runAfter = useRunAfter(syncId);
  const start = useStartSequenceRun(syncId);
  const after = runAfter.data?.attributes.dependent_sync_ids.length ?? 0;
  if (after === 0) return null;
  return (
    <Button
      variant="secondary"
      onClick={() => start.mutate(undefined, { onSuccess: (s) => onStarted(s.id) })}
      loading={start.isPending}
      disabled={disabled}
      title="Run this sync now, then each sync that runs after it, in order"
    >
      Run with the syncs after it
    </Button>
  );
}
