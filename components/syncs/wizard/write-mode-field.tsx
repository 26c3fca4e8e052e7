"use client";
// The write mode of a sync (docs/write-modes.md): one choice per mode the destination supports, each
// with what it does. A mode the destination does not support is replaced by its default.
import { useEffect } from "react";
import { cn } from "@/components/ui/cn";
import { WRITE_MODE_DESCRIPTIONS, WRITE_MODE_LABELS, WRITE_MODES, type WriteMode } from "@/lib/sync-rules/write-mode";
import type { StepProps } from "./step";

export function WriteModeField({ form, data }: Pick<StepProps, "form" | "data">) {
  const { values, writeModes } = data;
  // Until the definitions load, every mode is listed; then only the destination's.
  const offered: readonly WriteMode[] = writeModes ?? WRITE_MODES;
  const chosen = values.write_mode ?? "upsert";
  useEffect(() => {
    if (!writeModes || writeModes.length === 0 || writeModes.includes(chosen)) return;
    form.setValue("sync.write_mode", writeModes.includes("upsert") ? "upsert" : writeModes[0], { shouldDirty: true });
  }, [writeModes, chosen, form]);
  const error = form.formState.errors.sync?.write_mode?.message;
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-medium text-slate-700">Write mode</legend>
      {writeModes && writeModes.length < WRITE_MODES.length && (
        <p className="mb-2 text-sm text-slate-500">
          {data.destination?.attributes.name ?? "This destination"} supports {writeModes.map((m) => WRITE_MODE_LABELS[m].toLowerCase()).join(", ")}.
        </p>
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        {offered.map((mode) => (
          <label
            key={mode}
            className={cn("flex cursor-pointer gap-3 rounded-lg border p-4", chosen === mode ? "border-indigo-600 bg-indigo-50" : "border-slate-200")}
          >
            <input type="radio" value={mode} className="mt-1 text-indigo-600 focus:ring-indigo-500" {...form.register("sync.write_mode")} />
            <span>
              <span className="block font-medium">{WRITE_MODE_LABELS[mode]}</span>
              <span className="block text-sm text-slate-500">{WRITE_MODE_DESCRIPTIONS[mode]}</span>
            </span>
          </label>
        ))}
      </div>
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-600">
          {error}
        </p>
      )}
    </fieldset>
  );
}
