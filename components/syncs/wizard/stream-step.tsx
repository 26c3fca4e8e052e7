"use client";
import { Field, Select } from "@/components/ui/field";
import { InlineError, Spinner } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import type { StepProps } from "./step";

export function StreamStep({ form, data, editing }: StepProps) {
  const { catalog, streams, stream, destinationFields } = data;
  const error = form.formState.errors.sync?.stream_name;
  return (
    <>
      {catalog.isLoading ? (
        <p className="flex items-center gap-2 text-sm text-slate-500"><Spinner className="h-4 w-4" /> Discovering streams…</p>
      ) : catalog.error ? (
        <InlineError message={errorMessage(catalog.error)} />
      ) : (
        <Field label="Stream" required error={error && `Stream ${error.message}`} className="max-w-md">
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
      )}
      {stream && (
        <p className="text-sm text-slate-500">
          {destinationFields.length} fields, {destinationFields.filter((f) => f.required).length} required.
        </p>
      )}
    </>
  );
}
