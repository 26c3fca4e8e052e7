"use client";
import { useEffect } from "react";
import { cn } from "@/components/ui/cn";
import { Field, Select } from "@/components/ui/field";
import { SYNC_MODES } from "@/lib/validation/syncs";
import type { StepProps } from "./step";
import { WriteModeField } from "./write-mode-field";

const MODES: Record<(typeof SYNC_MODES)[number], { label: string; hint: string }> = {
  incremental: { label: "Incremental", hint: "Send only new and changed rows (failed rows are retried)." },
  full_refresh: { label: "Full refresh", hint: "Send every row of the model on every run." },
};

export function ModeStep({ form, data, editing }: StepProps) {
  const { values, preview } = data;
  const { load } = preview;
  useEffect(load, [load]);
  const cursor = form.getValues("sync.cursor_field");
  const cursorOptions = preview.columns.length ? preview.columns : cursor ? [cursor] : [];
  const liveError = form.formState.errors.sync?.live?.message;
  return (
    <>
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-700">Sync mode</legend>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          {SYNC_MODES.map((mode) => (
            <label key={mode} className={cn("flex cursor-pointer gap-3 rounded-lg border p-4", values.sync_mode === mode ? "border-indigo-600 bg-indigo-50" : "border-slate-200")}>
              <input type="radio" value={mode} className="mt-1 text-indigo-600 focus:ring-indigo-500" {...form.register("sync.sync_mode")} />
              <span>
                <span className="block font-medium">{MODES[mode].label}</span>
                <span className="block text-sm text-slate-500">{MODES[mode].hint}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {values.sync_mode === "incremental" && (
        <Field
          label="Cursor field (optional)"
          hint={editing ? "The cursor cannot change after a sync is created." : "A column that only grows (e.g. updated_at): each run reads from the last value onwards."}
          error={form.formState.errors.sync?.cursor_field?.message}
          className="max-w-md"
        >
          {(p) => (
            <Select {...p} disabled={editing} {...form.register("sync.cursor_field")}>
              <option value="">None: compare every row</option>
              {cursorOptions.map((c) => (
                <option key={c} value={c}>{c}</option>
              ))}
            </Select>
          )}
        </Field>
      )}
      <WriteModeField form={form} data={data} />
      <label className="flex max-w-2xl cursor-pointer gap-3">
        <input type="checkbox" className="mt-1 rounded text-indigo-600 focus:ring-indigo-500" {...form.register("sync.detect_deletes")} />
        <span>
          <span className="block text-sm font-medium text-slate-700">Detect deletes</span>
          <span className="block text-sm text-slate-500">
            After a run that read the whole model, delete from the destination the rows that are no longer in the model.
            {values.write_mode === "mirror" && " Mirror mode always does this."}
          </span>
        </span>
      </label>
      {values.sync_mode === "incremental" && (
        <div className="max-w-2xl">
          <label className="flex cursor-pointer gap-3">
            <input type="checkbox" className="mt-1 rounded text-indigo-600 focus:ring-indigo-500" aria-describedby="live-hint" {...form.register("sync.live")} />
            <span>
              <span className="block text-sm font-medium text-slate-700">Live</span>
              <span id="live-hint" className="block text-sm text-slate-500">
                Stream the source&apos;s changes as they commit, without a schedule (a PostgreSQL source with wal_level=logical, a model of one table, no cursor field).
              </span>
            </span>
          </label>
          {liveError && (
            <p role="alert" className="mt-1 text-sm text-red-700" data-testid="live-error">
              Live {liveError}
            </p>
          )}
        </div>
      )}
    </>
  );
}
