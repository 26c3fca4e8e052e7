"use client";
// "Test with one row": the dialog says what will happen (one real write to the destination) and
// lets the user pick the row by primary key; the result (the run, its record's payload and the
// destination's answer) shows on the page, not in a toast.
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { ErrorState, InlineError, Spinner } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useKey } from "@/lib/api-client/query";
import { useTestRunResult, useTestSync } from "@/lib/api-client/records";
import type { Sync } from "@/lib/api-client/types";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { RecordPanels } from "./record-detail";

export function TestRowDialog({ sync, open, onClose, onStarted }: { sync: Sync; open: boolean; onClose: () => void; onStarted: (runId: string) => void }) {
  const a = sync.attributes;
  const [key, setKey] = useState("");
  const test = useTestSync(sync.id);
  const keyColumn = a.model?.primary_key ?? "primary key";
  const destination = `${a.destination?.name ?? "the destination"} (${a.destination?.connector_name ?? "?"})`;
  const keyError = fieldErrors(test.error)["primary_key"];
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Send one row to the destination?"
      description={
        <>
          This writes one <strong>real</strong> row to <strong>{destination}</strong>, stream <code>{a.stream_name}</code>, exactly as a run would. It does not
          change what the next run sends.
        </>
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button
            onClick={() =>
              test.mutate(key.trim() || undefined, {
                onSuccess: (run) => {
                  onStarted(run.id);
                  onClose();
                },
              })
            }
            loading={test.isPending}
          >
            {key.trim() ? `Send row ${key.trim()}` : "Send a random row"}
          </Button>
        </>
      }
    >
      <Field
        label={`Row to send: its ${keyColumn}`}
        hint="Leave empty to send a random row of the model."
        error={keyError ? `${keyColumn} ${keyError}` : undefined}
      >
        {(p) => <Input {...p} value={key} onChange={(e) => setKey(e.target.value)} placeholder="e.g. 42" />}
      </Field>
      <InlineError message={test.error && !keyError ? errorMessage(test.error) : null} />
    </Dialog>
  );
}

export function TestRunResult({ syncId, runId, onDismiss }: { syncId: string; runId: string; onDismiss: () => void }) {
  const result = useTestRunResult(syncId, runId);
  const run = result.data?.run;
  const done = run !== undefined && !ACTIVE_RUN_STATUSES.has(run.attributes.status);
  const queryClient = useQueryClient();
  const key = useKey();
  // The sync's header (last run, Cancel run) and its runs list follow the finished test run at once.
  useEffect(() => {
    if (!done) return;
    void queryClient.invalidateQueries({ queryKey: key("syncs") });
    void queryClient.invalidateQueries({ queryKey: key("runs", syncId, "list") });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- key() is a new function each render; the keys it makes are not
  }, [done, queryClient, syncId]);
  return (
    <Card className="mb-6">
      <CardHeader
        title={
          <span className="flex items-center gap-2" data-testid="test-run-result">
            Test run #{runId} {run && <StatusBadge status={run.attributes.status} />}
          </span>
        }
        description={done ? "One row was sent on its own; this is what the destination got and answered." : "Sending one row…"}
        actions={
          <>
            <Link className="text-sm text-indigo-700 hover:underline" href={`/syncs/${syncId}/runs/${runId}`}>
              Open the run
            </Link>
            <Button variant="ghost" size="sm" onClick={onDismiss}>
              Dismiss
            </Button>
          </>
        }
      />
      <CardBody>
        {result.error ? (
          <ErrorState error={result.error} onRetry={() => void result.refetch()} />
        ) : !done ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner className="h-4 w-4" /> Waiting for the test run to finish…
          </p>
        ) : run.attributes.error ? (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
            {run.attributes.error}
          </p>
        ) : result.data?.record ? (
          <RecordPanels record={result.data.record} />
        ) : (
          <p className="text-sm text-slate-500">The model returned no row to send.</p>
        )}
      </CardBody>
    </Card>
  );
}
