"use client";
// The sync's place in sequences: the syncs it runs after (editable with sync:update) and those after it.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useRunAfter } from "@/lib/api-client/sequences";
import { RunAfterForm } from "./run-after-form";
import { SyncLinks, useSyncNames } from "./sync-links";

export function RunAfterCard({ syncId, canUpdate }: { syncId: string; canUpdate: boolean }) {
  const runAfter = useRunAfter(syncId);
  const syncs = useSyncNames();
  const [editing, setEditing] = useState(false);
  const a = runAfter.data?.attributes;

  return (
    <Card className="mb-6">
      <section aria-label="Sequence">
        <CardHeader
          title="Runs after"
          description="This sync starts on its own once every sync it runs after has succeeded."
          actions={canUpdate && !editing && a ? <Button variant="secondary" size="sm" onClick={() => setEditing(true)}>Edit</Button> : null}
        />
        <CardBody className="space-y-4">
          {runAfter.isLoading || syncs.isLoading ? (
            <LoadingState />
          ) : !a ? (
            <ErrorState error={runAfter.error ?? "Not found"} onRetry={() => void runAfter.refetch()} />
          ) : editing ? (
            <RunAfterForm syncId={syncId} current={a.sync_ids} syncs={syncs.list} onDone={() => setEditing(false)} />
          ) : (
            <div data-testid="run-after">
              <SyncLinks ids={a.sync_ids} nameOf={syncs.nameOf} empty="No other sync: it runs on its own schedule or when started." />
            </div>
          )}
          {a && (
            <div>
              <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Syncs after this one</h3>
              <div data-testid="run-before">
                <SyncLinks ids={a.dependent_sync_ids} nameOf={syncs.nameOf} empty="None." />
              </div>
            </div>
          )}
        </CardBody>
      </section>
    </Card>
  );
}
