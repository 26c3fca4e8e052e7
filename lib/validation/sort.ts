// The optional `sort` query parameter of lists: a field name, `-` in front for descending
// (`sort=-updated_at`). Each list names the fields it can sort by; anything else is a 400.
import { z } from "zod";

export type SortOrder = Record<string, "asc" | "desc">[];

/** `fields` maps API field names to model fields; the id breaks ties so pages never overlap. */
export function sortSchema(fields: Record<string, string>) {
  const allowed = Object.keys(fields);
  return z
    .string()
    .trim()
    .refine((v) => allowed.includes(v.replace(/^-/, "")), {
      message: `must be one of ${allowed.join(", ")} (prefix - for descending)`,
    })
    .transform((v): SortOrder => {
      const dir = v.startsWith("-") ? "desc" : "asc";
      return [{ [fields[v.replace(/^-/, "")]]: dir }, { id: dir }];
    })
    .optional()
    .describe(`Sort by ${allowed.join(", ")}; prefix - for descending. Default: newest updated first.`);
}

export const DEFAULT_SORT: SortOrder = [{ updatedAt: "desc" }, { id: "desc" }];
