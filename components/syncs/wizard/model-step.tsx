"use client";
import Link from "next/link";
import { useEffect } from "react";
import { Field, Select } from "@/components/ui/field";
import type { StepProps } from "./step";

export function ModelStep({ form, data, editing }: StepProps) {
  const { models, model, preview, values } = data;
  const error = form.formState.errors.sync?.model_id;
  // The sync reads from the model's source (also when the model came preselected by ?model=).
  const sourceId = model?.attributes.connector_id;
  useEffect(() => {
    if (sourceId !== undefined && values.source_id !== sourceId) form.setValue("sync.source_id", sourceId);
  }, [sourceId, values.source_id, form]);
  if (models.data?.data.length === 0) {
    return (
      <p className="text-sm text-slate-600">
        No models yet. <Link className="font-medium text-indigo-700 hover:underline" href="/models/new">Create a model</Link> first.
      </p>
    );
  }
  return (
    <>
      <Field label="Model" required error={error && "Choose a model"} className="max-w-md">
        {(p) => (
          <Select
            {...p}
            disabled={editing}
            data-field="sync.model_id sync.source_id"
            {...form.register("sync.model_id", {
              setValueAs: (v: string | number | null) => (v === "" || v === null ? null : Number(v)),
              onChange: (e: React.ChangeEvent<HTMLSelectElement>) => {
                const m = models.data?.data.find((x) => x.id === e.target.value);
                form.setValue("sync.source_id", m ? m.attributes.connector_id : null);
                preview.reset();
              },
            })}
          >
            <option value="">Choose a model…</option>
            {models.data?.data.map((m) => (
              <option key={m.id} value={m.id}>
                {m.attributes.name} ({m.attributes.connector?.name})
              </option>
            ))}
          </Select>
        )}
      </Field>
      {model && (
        <p className="text-sm text-slate-500">
          Reads from source “{model.attributes.connector?.name}”, primary key <code>{model.attributes.primary_key}</code>.
        </p>
      )}
    </>
  );
}
