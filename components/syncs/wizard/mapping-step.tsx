"use client";
import { useEffect } from "react";
import { Controller } from "react-hook-form";
import { PreviewTable } from "@/components/models/preview-table";
import { Button } from "@/components/ui/button";
import { InlineError, Spinner } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { templateSyntaxProblem } from "@/lib/sync-rules/templates";
import { MappingEditor, mappingProblems } from "../mapping-editor";
import type { StepProps, SyncForm } from "./step";

export function MappingStep({ form, data, editing, clearProblems }: StepProps) {
  const { preview, sample, destinationFields } = data;
  const rows = preview.rows;
  const { load } = preview;
  useEffect(load, [load]);

  // A new sync starts with the destination's required fields, matched to model columns by name.
  const ready = preview.columns.length > 0 && destinationFields.length > 0;
  useEffect(() => {
    if (!ready || editing || form.getValues("sync.configuration").length) return;
    const columns = new Set(preview.columns);
    const required = destinationFields.filter((f) => f.required);
    form.setValue(
      "sync.configuration",
      required.map((f) => ({ mapping_type: "standard" as const, to: f.name, from: columns.has(f.name) ? f.name : "" })),
    );
  }, [ready, editing, form, preview.columns, destinationFields]);

  return (
    <>
      {preview.isPending && <p className="flex items-center gap-2 text-sm text-slate-500"><Spinner className="h-4 w-4" /> Loading the model&rsquo;s sample rows…</p>}
      {preview.error && <InlineError message={`Could not load the model's rows: ${errorMessage(preview.error)}`} />}
      {rows && rows.length > 0 && (
        <details className="rounded-md border border-slate-200 px-3 py-2 text-sm">
          <summary className="cursor-pointer font-medium text-slate-700">
            Sample row {sample.index + 1} of {rows.length}
          </summary>
          <div className="mt-2 flex items-center gap-2">
            <Button size="sm" variant="secondary" disabled={sample.index === 0} onClick={() => sample.setIndex(sample.index - 1)}>Previous row</Button>
            <Button size="sm" variant="secondary" disabled={sample.index >= rows.length - 1} onClick={() => sample.setIndex(sample.index + 1)}>Next row</Button>
          </div>
          {sample.row && (
            <div className="mt-2">
              <PreviewTable rows={[sample.row]} />
            </div>
          )}
        </details>
      )}
      <Controller
        control={form.control}
        name="sync.configuration"
        render={({ field }) => (
          <MappingEditor
            value={field.value}
            onChange={(v) => {
              field.onChange(v);
              clearProblems();
            }}
            fields={destinationFields}
            columns={preview.columns}
            columnTypes={preview.columnTypes}
            sampleRow={sample.row}
            configurations={data.configurations}
          />
        )}
      />
    </>
  );
}

/** Mappings the API would refuse, found before the person goes on (a template's also under its box). */
export const validateMappings = (form: SyncForm): string[] => {
  const mappings = form.getValues("sync.configuration");
  const templates = mappings.flatMap((m, i) => {
    const problem = m.mapping_type === "template" && String(m.from ?? "").trim() ? templateSyntaxProblem(String(m.from)) : null;
    return problem ? [`Mapping ${i + 1}: ${problem}`] : [];
  });
  return [...mappingProblems(mappings), ...templates];
};
