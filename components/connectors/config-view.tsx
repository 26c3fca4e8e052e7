"use client";
// A connector's saved settings, read-only: each field under its label from the definition, in the
// definition's order (as the edit form shows them), never the internal key. Secrets show as hidden.
import type { JsonSchema } from "@/lib/api-client/types";
import { ordered, SECRET_MASK } from "./json-schema-form";

type Obj = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** `auth_type` → `Auth type`: for values the definition does not describe (e.g. header names). */
export const humanize = (key: string) => {
  const words = key.replace(/[_.-]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
};

function shown(value: unknown, prop?: JsonSchema): string {
  // Unset: the default applies, so say which.
  if ((value === undefined || value === null || value === "") && prop?.default !== undefined && prop.default !== "") return `${shown(prop.default)} (default)`;
  if (value === undefined || value === null || value === "") return "—";
  if (value === SECRET_MASK || (prop?.secret && typeof value === "string")) return "Hidden";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function Item({ label, value, mono = true }: { label: string; value: string; mono?: boolean }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className={`mt-0.5 break-all text-sm text-slate-800 ${mono && value !== "Hidden" ? "font-mono" : "italic text-slate-500"}`}>{value}</dd>
    </div>
  );
}

export function ConfigView({ schema, value }: { schema: JsonSchema; value: Obj }) {
  const known = ordered(schema);
  const extra = Object.keys(value ?? {}).filter((k) => !schema.properties?.[k]);
  if (known.length === 0 && extra.length === 0) return <p className="text-sm text-slate-500">No settings.</p>;
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-3" data-testid="connector-settings">
      {known.map(([key, prop]) => {
        const label = prop.title ?? humanize(key);
        const v = value?.[key];
        if (prop.properties) {
          return (
            <div key={key} className="col-span-full rounded-lg border border-slate-200 p-3">
              <p className="mb-2 text-sm font-semibold text-slate-800">{label}</p>
              <ConfigView schema={prop} value={isPlainObject(v) ? v : {}} />
            </div>
          );
        }
        if (isPlainObject(v)) {
          // A map the definition leaves open (HTTP headers): its own keys, each value per the field.
          const entries = Object.entries(v);
          return (
            <div key={key} className="col-span-full">
              <dt className="text-xs font-medium text-slate-500">{label}</dt>
              <dd className="mt-0.5 text-sm text-slate-800">
                {entries.length === 0
                  ? "—"
                  : entries.map(([k, item]) => (
                      <span key={k} className="mr-4 inline-block font-mono">
                        {k}: {prop.secret ? "Hidden" : shown(item)}
                      </span>
                    ))}
              </dd>
            </div>
          );
        }
        return <Item key={key} label={label} value={shown(v, prop)} />;
      })}
      {extra.map((key) => (
        <Item key={key} label={humanize(key)} value={shown(value[key])} />
      ))}
    </dl>
  );
}
