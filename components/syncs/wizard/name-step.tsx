"use client";
import { Field, Input, Textarea } from "@/components/ui/field";
import type { StepProps } from "./step";

export function NameStep({ form, data }: StepProps) {
  const placeholder = `${data.model?.attributes.name ?? "Model"} → ${data.destination?.attributes.name ?? "destination"}`;
  return (
    <>
      <Field label="Name" hint="Optional; shown in lists. No two syncs of the workspace share a name (ignoring case)." error={form.formState.errors.sync?.name?.message} className="max-w-md">
        {(p) => <Input {...p} placeholder={placeholder} {...form.register("sync.name")} />}
      </Field>
      <Field label="Description" className="max-w-md">
        {(p) => <Textarea {...p} rows={2} {...form.register("sync.description")} />}
      </Field>
    </>
  );
}
