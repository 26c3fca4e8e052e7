"use client";
// Field mappings: each destination field gets a model column (standard), a literal of a chosen type
// (static) or a Liquid template (template) whose value is rendered live on a sample row with the
// engine's own mapping code, so the preview is what the run will send. Column and template fields
// say what an empty value does (null_policy): write null, or keep the destination's value; rows can
// be selected to set it on many at once. One line per mapping, so forty fit a screen at 1280 px.
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import type { Mapping, NullPolicy, SyncConfigurations } from "@/lib/api-client/types";
import { isUnknownField, mapSameNames, withNullPolicy } from "./mapping-auto";
import { MAPPING_GRID, MappingRow, type DestinationField, type StaticType } from "./mapping-row";
import { NullPolicyBar } from "./null-policy-bar";

export { staticTypeOf, type DestinationField } from "./mapping-row";

/** Problems a person should fix before saving: empty fields, numbers that are not numbers. */
export function mappingProblems(mappings: Mapping[]): string[] {
  const problems: string[] = [];
  mappings.forEach((m, i) => {
    const n = `Mapping ${i + 1}`;
    if (!m.to) problems.push(`${n}: choose a destination field.`);
    if (m.mapping_type === "standard" && !m.from) problems.push(`${n}: choose a model column.`);
    if (m.mapping_type === "template" && !String(m.from ?? "").trim())
      problems.push(`${n}: write a template.`);
    if (m.mapping_type === "static" && typeof m.from === "string" && m.from === "")
      problems.push(`${n}: enter a value.`);
  });
  const targets = mappings.map((m) => m.to).filter(Boolean);
  const dupes = targets.filter((t, i) => targets.indexOf(t) !== i);
  if (dupes.length)
    problems.push(`Destination field ${[...new Set(dupes)].join(", ")} is mapped more than once.`);
  return problems;
}

export function MappingEditor({
  value,
  onChange,
  fields,
  columns,
  columnTypes = {},
  sampleRow,
  configurations,
}: {
  value: Mapping[];
  onChange: (value: Mapping[]) => void;
  fields: DestinationField[];
  columns: string[];
  /** Column → its type as the database names it (e.g. bigint), when known. */
  columnTypes?: Record<string, string>;
  sampleRow: Record<string, unknown> | null;
  configurations?: SyncConfigurations["data"]["configurations"]["catalog_mapping_types"];
}) {
  const listId = useId();
  const [autoMapped, setAutoMapped] = useState<number | null>(null);
  const [picked, setPicked] = useState<ReadonlySet<number>>(new Set());
  const [applied, setApplied] = useState<string | null>(null);
  // Only rows that still exist and can be empty count: the value may be replaced from outside.
  const selectable = value.flatMap((m, i) => (m.mapping_type === "static" ? [] : [i]));
  const selected = new Set(selectable.filter((i) => picked.has(i)));
  const autoMap = () => {
    const result = mapSameNames(value, fields, columns);
    setAutoMapped(result.added);
    if (result.added) onChange(result.mappings);
  };
  const set = (i: number, patch: Partial<Mapping>) => onChange(value.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const remove = (i: number) => {
    // The rows after the removed one move up: so does their selection.
    setPicked(new Set([...picked].filter((j) => j !== i).map((j) => (j > i ? j - 1 : j))));
    onChange(value.filter((_, j) => j !== i));
  };
  const select = (i: number, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(i);
    else next.delete(i);
    setPicked(next);
    setApplied(null);
  };
  const applyNullPolicy = (policy: NullPolicy) => {
    onChange(withNullPolicy(value, selected, policy));
    setApplied(`If empty: ${policy === "skip" ? "keep destination value" : "write null"} for ${selected.size} mapping${selected.size === 1 ? "" : "s"}.`);
    setPicked(new Set());
  };
  const staticTypes = Object.keys(configurations?.static ?? { string: 1, number: 1, boolean: 1, null: 1 }) as StaticType[];
  const unmappedRequired = fields.filter((f) => f.required && !value.some((m) => m.to === f.name));
  const allSelected = selectable.length > 0 && selected.size === selectable.length;

  return (
    <div className="space-y-3">
      <datalist id={listId}>
        {fields.map((f) => (
          <option key={f.name} value={f.name} />
        ))}
      </datalist>
      {selectable.length > 0 && <NullPolicyBar selected={selected.size} onApply={applyNullPolicy} />}
      {applied && (
        <p role="status" className="text-sm text-emerald-700">
          {applied}
        </p>
      )}
      {value.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-500">No mappings: rows are sent as they are.</p>
      ) : (
        <div className="rounded-lg border border-slate-200 bg-white">
          <div className={`${MAPPING_GRID} items-center border-b border-slate-200 px-1 py-1.5 text-xs font-semibold uppercase tracking-wide text-slate-500`}>
            <input
              type="checkbox"
              aria-label="Select all mappings"
              className="h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-2 focus:ring-indigo-500"
              checked={allSelected}
              disabled={selectable.length === 0}
              onChange={(e) => {
                setPicked(new Set(e.target.checked ? selectable : []));
                setApplied(null);
              }}
            />
            <span>Type</span>
            <span>From (model)</span>
            <span />
            <span>To (destination field)</span>
            <span title="What a null or missing value does: write null, or leave the field out so the destination keeps its value">If empty</span>
            <span />
          </div>
          {value.map((m, i) => (
            <MappingRow
              key={i}
              index={i}
              mapping={m}
              set={(patch) => set(i, patch)}
              remove={() => remove(i)}
              selected={selected.has(i)}
              onSelect={(on) => select(i, on)}
              columns={columns}
              columnTypes={columnTypes}
              listId={listId}
              field={fields.find((f) => f.name === m.to)}
              unknown={isUnknownField(m.to, fields)}
              staticTypes={staticTypes}
              sampleRow={sampleRow}
            />
          ))}
        </div>
      )}
      {unmappedRequired.length > 0 && (
        <p role="status" className="text-sm text-amber-800">
          Required destination fields not mapped yet: {unmappedRequired.map((f) => f.name).join(", ")}.
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" size="sm" onClick={() => onChange([...value, { mapping_type: "standard", from: "", to: "" }])}>
          + Add mapping
        </Button>
        <Button
          variant="secondary"
          size="sm"
          onClick={autoMap}
          disabled={fields.length === 0 || columns.length === 0}
          title={fields.length === 0 ? "The stream declares no fields to match" : columns.length === 0 ? "The model's columns are not loaded yet" : undefined}
        >
          Map fields with the same name
        </Button>
        {autoMapped !== null && (
          <span role="status" className="self-center text-sm text-slate-600">
            {autoMapped === 0 ? "No more fields with the same name as a model column." : `Mapped ${autoMapped} field${autoMapped === 1 ? "" : "s"} with the same name.`}
          </span>
        )}
      </div>
      {configurations && (
        <details className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-xs text-slate-600">
          <summary className="cursor-pointer font-medium text-slate-700">Template help</summary>
          <p className="mt-2">
            Templates use Liquid: model columns are variables, e.g. <code>{"{{ first_name | upcase }}"}</code>.
          </p>
          <ul className="mt-1 list-disc pl-5">
            {Object.entries(configurations.template.variable).map(([k, v]) => (
              <li key={k}>
                <code>{k}</code>: {v.description} <code>{v.value}</code>
              </li>
            ))}
            {Object.entries(configurations.template.filter).map(([k, v]) => (
              <li key={k}>
                <code>{k}</code>: {v.description} <code>{v.value}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
