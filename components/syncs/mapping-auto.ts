// Mapping helpers without UI: "map fields with the same name", the check that a destination
// field exists in the stream's catalog, and "if empty" set on many mappings at once.
import type { Mapping, NullPolicy } from "@/lib/api-client/types";

export interface KnownField {
  name: string;
}

/**
 * The mappings plus one standard mapping for each destination field that has a model column of the
 * same name (exact first, else ignoring case) and is not mapped yet; a mapping to such a field
 * still waiting for its column gets it. Returns the new list and how many fields it mapped.
 */
export function mapSameNames(mappings: Mapping[], fields: KnownField[], columns: string[]): { mappings: Mapping[]; added: number } {
  const columnFor = (field: string) => columns.find((c) => c === field) ?? columns.find((c) => c.toLowerCase() === field.toLowerCase());
  let added = 0;
  const next = mappings.map((m) => {
    if (m.mapping_type !== "standard" || m.from || !m.to) return m;
    const column = columnFor(m.to);
    if (!column) return m;
    added++;
    return { ...m, from: column };
  });
  const mapped = new Set(next.map((m) => m.to));
  for (const field of fields) {
    if (mapped.has(field.name)) continue;
    const column = columnFor(field.name);
    if (!column) continue;
    next.push({ mapping_type: "standard", from: column, to: field.name });
    mapped.add(field.name);
    added++;
  }
  return { mappings: next, added };
}

/**
 * Whether `to` names a field the stream does not have: its first segment ("address" of
 * "address.city", "items" of "items[].sku") is not among the catalog's fields. A stream that
 * declares no fields (schemaless) accepts any.
 */
export function isUnknownField(to: string, fields: KnownField[]): boolean {
  if (!to || fields.length === 0) return false;
  const root = to.split(/[.[]/)[0];
  return !fields.some((f) => f.name === root || f.name === to);
}

/** The mappings with `indices` set to `policy` (write is the default, so it is sent as absent). */
export function withNullPolicy(mappings: Mapping[], indices: ReadonlySet<number>, policy: NullPolicy): Mapping[] {
  return mappings.map((m, i) => {
    if (!indices.has(i) || m.mapping_type === "static") return m;
    const { null_policy: _previous, ...rest } = m;
    return policy === "skip" ? { ...rest, null_policy: "skip" } : rest;
  });
}
