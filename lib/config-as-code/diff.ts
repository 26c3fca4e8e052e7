// What differs between an object as the workspace has it and as a file says it, field by field
// (pure: the plan's `fields`). Only the fields the file sets are compared: a field left out stays
// as it is. Nested objects (a configuration) are compared leaf by leaf; lists as a whole. Values
// are shown only when plain and not secret.
import type { ConfigChange } from "@/lib/validation/config";

export type FieldChange = ConfigChange["fields"][number];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPlain = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** Deep equality of JSON values; object key order does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => a[k] !== undefined || b[k] !== undefined));
    return [...keys].every((k) => sameJson(a[k], b[k]));
  }
  return false;
}

export interface DiffOptions {
  /** Fields compared leaf by leaf (e.g. configuration of a connector). */
  nested?: readonly string[];
  /** Dotted paths whose values are secrets: changes are reported without values. */
  secret?: (path: string) => boolean;
}

function leafChanges(before: unknown, after: unknown, path: string, secret: (p: string) => boolean, out: FieldChange[]): void {
  // An object that appears or goes is listed leaf by leaf too, so a secret inside it stays marked.
  const objectOrNone = (v: unknown) => isObject(v) || v === undefined;
  if ((isObject(before) || isObject(after)) && objectOrNone(before) && objectOrNone(after)) {
    const b = isObject(before) ? before : {};
    const a = isObject(after) ? after : {};
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) leafChanges(b[key], a[key], `${path}.${key}`, secret, out);
    return;
  }
  if (sameJson(before, after)) return;
  out.push(change(path, before, after, secret(path)));
}

function change(field: string, before: unknown, after: unknown, secret: boolean): FieldChange {
  if (secret) return { field, secret: true };
  if ((before === undefined || isPlain(before)) && (after === undefined || isPlain(after))) {
    return { field, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
  }
  return { field };
}

/** The fields `desired` sets that differ from `current`. */
export function changedFields(current: Readonly<Record<string, unknown>>, desired: Readonly<Record<string, unknown>>, options: DiffOptions = {}): FieldChange[] {
  const secret = options.secret ?? (() => false);
  const out: FieldChange[] = [];
  for (const [field, value] of Object.entries(desired)) {
    if (value === undefined || field === "slug") continue;
    if (options.nested?.includes(field)) leafChanges(current[field], value, field, secret, out);
    else if (!sameJson(current[field], value)) out.push(change(field, current[field], value, secret(field)));
  }
  return out;
}

/** The fields a create sets (values shown as for an update from nothing). */
export function createdFields(desired: Readonly<Record<string, unknown>>, options: DiffOptions = {}): FieldChange[] {
  return changedFields({}, desired, options);
}
