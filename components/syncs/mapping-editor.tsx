"use client";
// Field mappings: each destination field gets a model column (standard), a literal of a chosen type
// (static) or a Liquid template (template) whose value is rendered live on a sample row with the
// engine's own mapping code, so the preview is what the run will send. Column and template fields
// say what an empty value does (null_policy): write null, or keep the destination's value.
import { useId, useMemo, useState } from "react";
import { cellText } from "@/components/models/preview-table";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import type { Mapping, MappingType, SyncConfigurations } from "@/lib/api-client/types";
import { previewMapping } from "@/lib/sync-config/mapping";
import { templateSyntaxProblem } from "@/lib/sync-config/templates";
import { isUnknownField, mapSameNames } from "./mapping-auto";

export interface DestinationField {
  name: string;
  required: boolean;
  type?: string;
}

type StaticType = "string" | "number" | "boolean" | "null";

export function staticTypeOf(value: unknown): StaticType {
  if (value === null) return "null";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  return "string";
}

function toStatic(type: StaticType, raw: string): unknown {
  if (type === "null") return null;
  if (type === "number") return raw.trim() === "" || Number.isNaN(Number(raw)) ? raw : Number(raw);
  if (type === "boolean") return raw === "true";
  return raw;
}

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
  const autoMap = () => {
    const result = mapSameNames(value, fields, columns);
    setAutoMapped(result.added);
    if (result.added) onChange(result.mappings);
  };
  const set = (i: number, patch: Partial<Mapping>) =>
    onChange(value.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const staticTypes = Object.keys(
    configurations?.static ?? { string: 1, number: 1, boolean: 1, null: 1 },
  ) as StaticType[];
  const unmappedRequired = fields.filter((f) => f.required && !value.some((m) => m.to === f.name));

  return (
    <div className="space-y-3">
      <datalist id={listId}>
        {fields.map((f) => (
          <option key={f.name} value={f.name} />
        ))}
      </datalist>
      <div className="hidden grid-cols-[9rem_1fr_1.5rem_1fr_2.5rem] gap-3 px-1 text-xs font-semibold uppercase tracking-wide text-slate-500 md:grid">
        <span>Type</span>
        <span>From (model)</span>
        <span />
        <span>To (destination field)</span>
        <span />
      </div>
      {value.length === 0 && (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-500">
          No mappings: rows are sent as they are.
        </p>
      )}
      {value.map((m, i) => (
        <MappingRow
          key={i}
          index={i}
          mapping={m}
          set={(patch) => set(i, patch)}
          remove={() => onChange(value.filter((_, j) => j !== i))}
          columns={columns}
          columnTypes={columnTypes}
          listId={listId}
          field={fields.find((f) => f.name === m.to)}
          unknown={isUnknownField(m.to, fields)}
          staticTypes={staticTypes}
          sampleRow={sampleRow}
        />
      ))}
      {unmappedRequired.length > 0 && (
        <p role="status" className="text-sm text-amber-800">
          Required destination fields not mapped yet: {unmappedRequired.map((f) => f.name).join(", ")}.
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          onClick={() => onChange([...value, { mapping_type: "standard", from: "", to: "" }])}
        >
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
            Templates use Liquid: model columns are variables, e.g. <code>{"{{ first_name | upcase }}"}</code>
            .
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

function MappingRow({
  index,
  mapping: m,
  set,
  remove,
  columns,
  columnTypes,
  listId,
  field,
  unknown,
  staticTypes,
  sampleRow,
}: {
  index: number;
  mapping: Mapping;
  set: (patch: Partial<Mapping>) => void;
  remove: () => void;
  columns: string[];
  columnTypes: Record<string, string>;
  listId: string;
  field?: DestinationField;
  /** The destination field is not in the stream's catalog. */
  unknown: boolean;
  staticTypes: StaticType[];
  sampleRow: Record<string, unknown> | null;
}) {
  const n = index + 1;
  const preview = useMemo(() => {
    if (m.mapping_type !== "template" || !sampleRow || !String(m.from ?? "").trim()) return null;
    const result = previewMapping([{ from: m.from, to: "value", mapping_type: "template", null_policy: m.null_policy }], sampleRow);
    // With null_policy skip an empty value leaves the field out: the payload has no "value".
    // The preview maps to a stand-in field "value": its name is no part of what the person reads.
    return result.ok
      ? { ok: true as const, value: result.payload.value, leftOut: !("value" in result.payload) }
      : { ok: false as const, error: result.error.replace(/^Mapping to "value": /, "") };
  }, [m.mapping_type, m.from, m.null_policy, sampleRow]);
  const sType = staticTypeOf(m.from);
  // A template that does not parse says so under its own box, whether or not a sample row is loaded.
  const templateProblem = useMemo(
    () => (m.mapping_type === "template" && String(m.from ?? "").trim() ? templateSyntaxProblem(String(m.from)) : null),
    [m.mapping_type, m.from],
  );

  return (
    <div data-testid={`mapping-${index}`} className="rounded-lg border border-slate-200 bg-white p-3">
      <div className="grid grid-cols-1 items-start gap-3 md:grid-cols-[9rem_1fr_1.5rem_1fr_2.5rem]">
        <Select
          aria-label={`Mapping ${n} type`}
          value={m.mapping_type}
          onChange={(e) => {
            const type = e.target.value as MappingType;
            // A static value is never empty by accident: it has no null policy.
            set({ mapping_type: type, from: type === "static" ? "" : type === "template" ? "" : "", ...(type === "static" ? { null_policy: undefined } : {}) });
          }}
        >
          <option value="standard">Column</option>
          <option value="static">Static value</option>
          <option value="template">Template</option>
        </Select>
        <div className="min-w-0">
          {m.mapping_type === "standard" && (
            <Select
              aria-label={`Mapping ${n} model column`}
              value={String(m.from ?? "")}
              onChange={(e) => set({ from: e.target.value })}
            >
              <option value="">Choose a column…</option>
              {columns.map((c) => (
                <option key={c} value={c}>
                  {columnTypes[c] ? `${c} (${columnTypes[c]})` : c}
                </option>
              ))}
            </Select>
          )}
          {m.mapping_type === "standard" && typeof m.from === "string" && columnTypes[m.from] && (
            <p className="mt-1 text-xs text-slate-500" data-testid={`column-type-${index}`}>
              {columnTypes[m.from]}
            </p>
          )}
          {m.mapping_type === "static" && (
            <div className="flex gap-2">
              <div className="w-28 shrink-0">
                <Select
                  aria-label={`Mapping ${n} value type`}
                  value={sType}
                  onChange={(e) =>
                    set({
                      from: toStatic(
                        e.target.value as StaticType,
                        sType === "null" ? "" : String(m.from ?? ""),
                      ),
                    })
                  }
                >
                  {staticTypes.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </Select>
              </div>
              <div className="min-w-0 flex-1">
                {sType === "boolean" ? (
                  <Select
                    aria-label={`Mapping ${n} value`}
                    value={String(m.from)}
                    onChange={(e) => set({ from: e.target.value === "true" })}
                  >
                    <option value="true">true</option>
                    <option value="false">false</option>
                  </Select>
                ) : sType === "null" ? (
                  <Input aria-label={`Mapping ${n} value`} value="null" disabled />
                ) : (
                  <Input
                    aria-label={`Mapping ${n} value`}
                    type={sType === "number" ? "number" : "text"}
                    value={String(m.from ?? "")}
                    onChange={(e) => set({ from: toStatic(sType, e.target.value) })}
                    placeholder={sType === "number" ? "42" : "A fixed value"}
                  />
                )}
              </div>
            </div>
          )}
          {m.mapping_type === "template" && (
            <>
              <Input
                aria-label={`Mapping ${n} template`}
                aria-invalid={templateProblem ? true : undefined}
                aria-describedby={templateProblem ? `${listId}-template-${index}` : undefined}
                className="font-mono"
                value={String(m.from ?? "")}
                onChange={(e) => set({ from: e.target.value })}
                placeholder="{{ first_name }} {{ last_name }}"
              />
              {templateProblem && (
                <p id={`${listId}-template-${index}`} className="mt-1 text-xs font-medium text-red-600" data-testid={`template-problem-${index}`}>
                  {templateProblem}
                </p>
              )}
            </>
          )}
        </div>
        <span className="hidden pt-2 text-center text-slate-400 md:block" aria-hidden>
          →
        </span>
        <div>
          <Input
            aria-label={`Mapping ${n} destination field`}
            list={listId}
            value={m.to}
            onChange={(e) => set({ to: e.target.value })}
            placeholder="destination field"
          />
          {field && (
            <p className="mt-1 text-xs text-slate-500" data-testid={`field-type-${index}`}>
              {field.type ?? "any"}
              {field.required && " · required"}
            </p>
          )}
          {unknown && (
            <p role="status" className="mt-1 text-xs font-medium text-amber-800" data-testid={`unknown-field-${index}`}>
              “{m.to}” is not a field of this stream in the destination&rsquo;s catalog; the destination may reject it or
              ignore it. Pick a listed field, or refresh the destination&rsquo;s catalog if the field is new.
            </p>
          )}
        </div>
        <Button
          variant="ghost"
          size="sm"
          aria-label={`Remove mapping ${n}`}
          onClick={remove}
          className="mt-0.5"
        >
          ✕
        </Button>
      </div>
      {m.mapping_type !== "static" && (
        <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-slate-600">
          <label htmlFor={`${listId}-null-${index}`}>If empty:</label>
          <div className="w-56">
            <Select
              id={`${listId}-null-${index}`}
              aria-label={`Mapping ${n} if empty`}
              value={m.null_policy ?? "write"}
              onChange={(e) => set({ null_policy: e.target.value === "skip" ? "skip" : undefined })}
            >
              <option value="write">write null</option>
              <option value="skip">keep destination value</option>
            </Select>
          </div>
          {m.null_policy === "skip" && <span>A null or missing value is left out of the payload, so it never overwrites the destination&rsquo;s value.</span>}
        </div>
      )}
      {m.mapping_type === "template" && (
        <div
          className="mt-2 rounded-md bg-slate-50 px-3 py-2 text-xs"
          aria-live="polite"
          data-testid={`template-preview-${index}`}
        >
          {!sampleRow ? (
            <span className="text-slate-500">
              Preview appears once the model&rsquo;s sample row is loaded.
            </span>
          ) : !preview ? (
            <span className="text-slate-500">Type a template to see its value on the sample row.</span>
          ) : templateProblem ? (
            <span className="text-slate-500">Fix the template to see its value on the sample row.</span>
          ) : preview.ok && preview.leftOut ? (
            <span className="text-slate-600">Empty on the sample row: the field is left out, the destination keeps its value.</span>
          ) : preview.ok ? (
            <>
              <span className="text-slate-500">Preview on the sample row: </span>
              <code className="font-mono text-emerald-800">{cellText(preview.value)}</code>
            </>
          ) : (
            <span className="text-red-700">{preview.error}</span>
          )}
        </div>
      )}
    </div>
  );
}
