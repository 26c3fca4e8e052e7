"use client";
// The blast-radius limits of a sync (settings view): a general run checks them against its plan
// before its first write and stops for approval when one is exceeded. An empty percentage is no limit.
import { Field, Input } from "@/components/ui/field";
import type { StepProps } from "./step";

const percent = (v: unknown) => (v === "" || v === null || v === undefined ? null : Number(v));
const rows = percent;

export function GuardStep({ form }: StepProps) {
  const errors = form.formState.errors.sync?.guard;
  return (
    <>
      <p className="max-w-2xl text-sm text-slate-600">
        Before it writes, a run of this sync plans what it would do. When it would exceed a limit below it stops, writes nothing and waits for someone
        to approve or cancel it. Percentages are of the rows the sync tracked before the run; leave one empty for no limit.
      </p>
      <div className="grid max-w-2xl grid-cols-1 gap-4 sm:grid-cols-2">
        <Field label="Most deletes (%)" hint="Only for syncs that delete (mirror, or detect deletes); default 20." error={errors?.max_delete_percent?.message}>
          {(p) => <Input {...p} type="number" min={0} max={100} step="any" placeholder="No limit" {...form.register("sync.guard.max_delete_percent", { setValueAs: percent })} />}
        </Field>
        <Field label="Most changes (%)" hint="Updates plus deletes; default 50 for a SaaS destination (CRM, marketing, …), else no limit." error={errors?.max_change_percent?.message}>
          {(p) => <Input {...p} type="number" min={0} max={100} step="any" placeholder="No limit" {...form.register("sync.guard.max_change_percent", { setValueAs: percent })} />}
        </Field>
        <Field label="Most changes (rows)" hint="Updates plus deletes in one run, e.g. your API quota; no limit by default." error={errors?.max_change_rows?.message}>
          {(p) => <Input {...p} type="number" min={0} step={1} placeholder="No limit" {...form.register("sync.guard.max_change_rows", { setValueAs: rows })} />}
        </Field>
      </div>
      <label className="flex max-w-2xl cursor-pointer gap-3">
        <input type="checkbox" className="mt-1 rounded text-indigo-600 focus:ring-indigo-500" {...form.register("sync.guard.refuse_empty_extract")} />
        <span>
          <span className="block text-sm font-medium text-slate-700">Refuse an empty extract</span>
          <span className="block text-sm text-slate-500">Stop a run whose model returns no rows while the sync tracks some (on by default for syncs that delete).</span>
        </span>
      </label>
    </>
  );
}
