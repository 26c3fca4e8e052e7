"use client";
// Renders a connector definition's connection_specification (JSON Schema) as a form: strings,
// numbers, booleans, enums and nested objects, ordered by `order`; `"secret": true` fields are
// password inputs. The value is a plain object; errors are keyed by dotted path (`credentials.username`).
import { Checkbox, Field, Input, Select } from "@/components/ui/field";
import type { JsonSchema } from "@/lib/api-client/types";

export const SECRET_MASK = "*************";

type Obj = Record<string, unknown>;

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : ["string"]);
const isNumeric = (s: JsonSchema) => typesOf(s).some((t) => t === "integer" || t === "number");
const isObject = (s: JsonSchema) => typesOf(s).includes("object") && Boolean(s.properties);
/** The schema's properties in the definition's order (`order`, then as written). */
export const ordered = (s: JsonSchema) =>
  Object.entries(s.properties ?? {}).sort(([, a], [, b]) => (a.order ?? 1000) - (b.order ?? 1000));

/** The schema's defaults filled into a (partial) value; nested objects included. */
export function withDefaults(schema: JsonSchema, value: Obj = {}): Obj {
  const out: Obj = { ...value };
  for (const [key, prop] of ordered(schema)) {
    if (isObject(prop)) out[key] = withDefaults(prop, (value[key] as Obj) ?? {});
    else if (out[key] === undefined && prop.default !== undefined) out[key] = prop.default;
  }
  return out;
}

/** A person's checks before the server's: required, numbers, lengths, patterns and enums. */
export function validateValue(schema: JsonSchema, value: Obj, prefix = ""): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [key, prop] of ordered(schema)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const v = value?.[key];
    const required = schema.required?.includes(key);
    if (isObject(prop)) {
      Object.assign(errors, validateValue(prop, (v as Obj) ?? {}, path));
      continue;
    }
    const empty = v === undefined || v === null || v === "";
    if (empty) {
      if (required && !prop.secret) errors[path] = "is required";
      continue;
    }
    if (isNumeric(prop) && !typesOf(prop).includes("string")) {
      const n = Number(v);
      if (!Number.isFinite(n)) errors[path] = "must be a number";
      else if (typesOf(prop).includes("integer") && !Number.isInteger(n)) errors[path] = "must be a whole number";
      else if (prop.minimum !== undefined && n < prop.minimum) errors[path] = `must be at least ${prop.minimum}`;
      else if (prop.maximum !== undefined && n > prop.maximum) errors[path] = `must be at most ${prop.maximum}`;
      continue;
    }
    const s = String(v);
    if (prop.minLength !== undefined && s.length < prop.minLength) errors[path] = prop.minLength === 1 ? "is required" : `must be at least ${prop.minLength} characters`;
    else if (prop.pattern && !prop.secret && !new RegExp(prop.pattern).test(s)) errors[path] = "has an invalid format";
    else if (prop.enum && !prop.enum.includes(v)) errors[path] = `must be one of: ${prop.enum.join(", ")}`;
  }
  return errors;
}

/** Numbers typed into text inputs become numbers where the schema wants them. */
export function coerceValue(schema: JsonSchema, value: Obj): Obj {
  const out: Obj = { ...value };
  for (const [key, prop] of ordered(schema)) {
    const v = out[key];
    if (isObject(prop)) out[key] = coerceValue(prop, (v as Obj) ?? {});
    else if (v === "" && !schema.required?.includes(key)) delete out[key];
    else if (isNumeric(prop) && typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) out[key] = Number(v);
  }
  return out;
}

/** The value with every masked secret emptied (a secret object keeps its keys), for retyping. */
export function clearMasks(value: unknown): unknown {
  if (value === SECRET_MASK) return "";
  if (Array.isArray(value)) return value.map(clearMasks);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clearMasks(v)]));
  return value;
}

export function containsMask(value: unknown): boolean {
  if (value === SECRET_MASK) return true;
  if (value && typeof value === "object") return Object.values(value).some(containsMask);
  return false;
}

export function JsonSchemaForm({
  schema,
  value,
  onChange,
  errors,
  prefix = "",
  disabled,
}: {
  schema: JsonSchema;
  value: Obj;
  onChange: (value: Obj) => void;
  errors: Record<string, string>;
  prefix?: string;
  disabled?: boolean;
}) {
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
      {ordered(schema).map(([key, prop]) => {
        const path = prefix ? `${prefix}.${key}` : key;
        const label = prop.title ?? key;
        const required = schema.required?.includes(key);
        const current = value?.[key];
        const set = (v: unknown) => onChange({ ...value, [key]: v });
        // An earlier name of a field (Slack's bot_token for api_token): shown only to settings that use it.
        if (prop.deprecated && (current === undefined || current === null || current === "")) return null;
        if (isObject(prop)) {
          return (
            <fieldset key={key} className="col-span-full rounded-lg border border-slate-200 p-4">
              <legend className="px-1 text-sm font-semibold text-slate-800">{label}</legend>
              {prop.description && <p className="mb-3 text-xs text-slate-500">{prop.description}</p>}
              <JsonSchemaForm
                schema={prop}
                value={(current as Obj) ?? {}}
                onChange={(v) => set(v)}
                errors={errors}
                prefix={path}
                disabled={disabled}
              />
            </fieldset>
          );
        }
        const error = errors[path] ? `${label} ${errors[path]}` : undefined;
        if (typesOf(prop).includes("boolean")) {
          return (
            <div key={key} className="col-span-full">
              <Checkbox label={label} checked={current === true} onChange={(e) => set(e.target.checked)} disabled={disabled || prop.readOnly} />
              {prop.description && <p className="ml-6 mt-0.5 text-xs text-slate-500">{prop.description}</p>}
              {error && <p className="ml-6 mt-0.5 text-xs font-medium text-red-600">{error}</p>}
            </div>
          );
        }
        const hint =
          prop.secret && current === SECRET_MASK
            ? "Stored and hidden. Leave as is to keep it, or type a new value to replace it."
            : prop.description;
        return (
          <Field key={key} label={label} hint={hint} error={error} required={required && !prop.secret}>
            {(p) =>
              prop.enum ? (
                <Select {...p} value={String(current ?? "")} onChange={(e) => set(e.target.value)} disabled={disabled || (prop.readOnly && prop.enum.length <= 1)}>
                  {!required && <option value="">—</option>}
                  {prop.enum.map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {String(option)}
                    </option>
                  ))}
                </Select>
              ) : (
                <Input
                  {...p}
                  name={path}
                  type={prop.secret ? "password" : isNumeric(prop) && !typesOf(prop).includes("string") ? "number" : "text"}
                  inputMode={isNumeric(prop) ? "numeric" : undefined}
                  autoComplete={prop.secret ? "new-password" : "off"}
                  value={current === undefined || current === null ? "" : String(current)}
                  onChange={(e) => set(e.target.value)}
                  disabled={disabled}
                  readOnly={prop.readOnly}
                />
              )
            }
          </Field>
        );
      })}
    </div>
  );
}
