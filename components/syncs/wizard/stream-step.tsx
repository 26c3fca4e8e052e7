"use client";
// The destination's stream. A destination with one stream has it chosen already; Refresh discovers
// the streams again (a table or object added since the catalog was read) without leaving the wizard.
import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import { InlineError, Spinner } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useRefreshDiscover } from "@/lib/api-client/connectors";
import type { StepProps } from "./step";

export function StreamStep({ form, data, editing }: StepProps) {
  const { catalog, streams, stream, destinationFields } = data;
  const error = form.formState.errors.sync?.stream_name;
  const destinationId = String(form.getValues("sync.destination_id") ?? "");
  const refresh = useRefreshDiscover(destinationId);
  const only = streams.length === 1 ? streams[0].name : null;

  // Nothing to choose between: the one stream is the choice (the person may still change destination).
  useEffect(() => {
    if (!editing && only && !form.getValues("sync.stream_name")) form.setValue("sync.stream_name", only, { shouldValidate: true });
  }, [editing, only, form]);

  const refreshButton = (
    <Button
      variant="secondary"
      loading={refresh.isPending}
      disabled={!destinationId || catalog.isLoading}
      title="Discover the destination's streams again, e.g. after adding a table"
      onClick={() => refresh.mutate(undefined)}
    >
      Refresh streams
    </Button>
  );

  return (
    <>
      {catalog.isLoading ? (
        <p className="flex items-center gap-2 text-sm text-slate-500"><Spinner className="h-4 w-4" /> Discovering streams…</p>
      ) : catalog.error ? (
        <div className="space-y-3">
          <InlineError message={errorMessage(catalog.error)} />
          {refreshButton}
        </div>
      ) : (
        <div className="flex max-w-xl items-start gap-3">
          <Field label="Stream" required error={error && `Stream ${error.message}`} className="min-w-0 flex-1">
            {(p) => (
              <Select {...p} {...form.register("sync.stream_name", { onChange: () => !editing && form.setValue("sync.configuration", []) })}>
                <option value="">Choose a stream…</option>
                {streams.map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          {/* Level with the select: below its label (a text-sm line and mb-1). */}
          <div className="mt-6 shrink-0">{refreshButton}</div>
        </div>
      )}
      {stream && (
        <p className="text-sm text-slate-500">
          {destinationFields.length} fields, {destinationFields.filter((f) => f.required).length} required.
        </p>
      )}
    </>
  );
}
