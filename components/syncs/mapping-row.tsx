"use client";
// One mapping on one line: select box, type, from (column, static value or template), to, and what
// an empty value does. Type hints, the unknown-field warning and the template preview sit under it.
import { useMemo } from "react";
import { cellText } from "@/components/models/preview-table";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import type { Mapping, MappingType } from "@/lib/api-client/types";
import { previewMapping } from "@/lib/sync-rules/mapping";
import { templateSyntaxProblem } from "@/lib/sync-rules/templates";

export interface DestinationField {
  name: string;
  required: boolean;
  type?: string;
}

export type StaticType = "string" | "number" | "boolean" | "null";

/**
 * The columns every row and the heading share: select, type, from, arrow, to, if empty, remove.
 * Fixed widths only where the content is fixed, so the two free columns take what 1280 px leaves.
 */
export const MAPPING_GRID = "grid grid-cols-[1.25rem_7.5rem_minmax(0,1fr)_0.75rem_minmax(0,1fr)_11rem_2rem] items-start gap-2";

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

const hint = "mt-0.5 truncate text-[11px] leading-4 text-slate-500";

export function MappingRow({
  index,
  mapping: m,
  set,
  remove,
  selected,
  onSelect,
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
  selected: boolean;
  onSelect: (selected: boolean) => void;
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
  const isStatic = m.mapping_type === "static";

  return (
    <div data-testid={`mapping-${index}`} className={`border-b border-slate-100 px-1 py-1.5 last:border-b-0 ${selected ? "bg-indigo-50/60" : ""}`}>
      <div className={MAPPING_GRID}>
        <input
          type="checkbox"
          aria-label={`Select mapping ${n}`}
          className="mt-3 h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-2 focus:ring-indigo-500 disabled:opacity-40"
          checked={selected}
          disabled={isStatic}
          title={isStatic ? "A static value is never empty: it has no “if empty” setting" : undefined}
          onChange={(e) => onSelect(e.target.checked)}
        />
        <Select
          aria-label={`Mapping ${n} type`}
          value={m.mapping_type}
          onChange={(e) => {
            const type = e.target.value as MappingType;
            // A static value is never empty by accident: it has no null policy.
            set({ mapping_type: type, from: "", ...(type === "static" ? { null_policy: undefined } : {}) });
          }}
        >
          <option value="standard">Column</option>
          <option value="static">Static value</option>
          <option value="template">Template</option>
        </Select>
        <div className="min-w-0">
          {m.mapping_type === "standard" && (
            <>
              <Select aria-label={`Mapping ${n} model column`} value={String(m.from ?? "")} onChange={(e) => set({ from: e.target.value })}>
                <option value="">Choose a column…</option>
                {columns.map((c) => (
                  <option key={c} value={c}>
                    {columnTypes[c] ? `${c} (${columnTypes[c]})` : c}
                  </option>
                ))}
              </Select>
              {typeof m.from === "string" && columnTypes[m.from] && (
                <p className={hint} data-testid={`column-type-${index}`}>
                  {columnTypes[m.from]}
                </p>
              )}
            </>
          )}
          {isStatic && (
            <div className="flex gap-1.5">
              <div className="w-24 shrink-0">
                <Select
                  aria-label={`Mapping ${n} value type`}
                  value={sType}
                  onChange={(e) => set({ from: toStatic(e.target.value as StaticType, sType === "null" ? "" : String(m.from ?? "")) })}
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
                  <Select aria-label={`Mapping ${n} value`} value={String(m.from)} onChange={(e) => set({ from: e.target.value === "true" })}>
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
        <span className="pt-2 text-center text-slate-400" aria-hidden>
          →
        </span>
        <div className="min-w-0">
          <Input aria-label={`Mapping ${n} destination field`} list={listId} value={m.to} onChange={(e) => set({ to: e.target.value })} placeholder="destination field" />
          {field && (
            <p className={hint} data-testid={`field-type-${index}`}>
              {field.type ?? "any"}
              {field.required && " · required"}
            </p>
          )}
        </div>
        {isStatic ? (
          <span className="pt-2 text-xs text-slate-400" title="A static value is never empty">
            —<span className="sr-only">no “if empty” setting for a static value</span>
          </span>
        ) : (
          <Select
            aria-label={`Mapping ${n} if empty`}
            title={m.null_policy === "skip" ? "A null or missing value is left out of the payload, so it never overwrites the destination's value." : "A null or missing value is sent as null."}
            value={m.null_policy ?? "write"}
            onChange={(e) => set({ null_policy: e.target.value === "skip" ? "skip" : undefined })}
          >
            <option value="write">write null</option>
            <option value="skip">keep destination value</option>
          </Select>
        )}
        <Button variant="ghost" size="sm" aria-label={`Remove mapping ${n}`} onClick={remove} className="mt-0.5 px-2">
          ✕
        </Button>
      </div>
      {unknown && (
        <p role="status" className="mt-1 pl-7 text-xs font-medium text-amber-800" data-testid={`unknown-field-${index}`}>
          “{m.to}” is not a field of this stream in the destination&rsquo;s catalog; the destination may reject it or ignore it. Pick a listed field, or refresh
          the destination&rsquo;s catalog if the field is new.
        </p>
      )}
      {m.mapping_type === "template" && (
        <div className="ml-7 mt-1 rounded-md bg-slate-50 px-2 py-1 text-xs" aria-live="polite" data-testid={`template-preview-${index}`}>
          {!sampleRow ? (
            <span className="text-slate-500">Preview appears once the model&rsquo;s sample row is loaded.</span>
          ) : !preview ? (
            <span className="text-slate-500">Type a template to see its value on the sample row.</span>
          ) : templateProblem ? (
            <span className="text-slate-500">Fix the template to see its value on the sample row.</span>
          ) : preview.ok && preview.leftOut ? (
            <span className="text-slate-600">Empty on the sample row: the field is left out, the destination keeps its value.</span>
          ) : preview.ok ? (
            <>
              <span className="text-slate-500">Preview on the sample row: </span>
              <code className="break-all font-mono text-emerald-800">{cellText(preview.value)}</code>
            </>
          ) : (
            <span className="text-red-700">{preview.error}</span>
          )}
        </div>
      )}
    </div>
  );
}
