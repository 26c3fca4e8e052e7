// Reading JSON columns back: checked with the schema of their shape instead of cast, so a row that
// does not match (edited by hand, written by an older version) fails loudly where it is read.
import type { z } from "zod";

/** `json` as `schema` describes it, or an internal error naming `what` (e.g. "policies of role 3") and where it differs. */
export function parseStored<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Error(`Malformed stored ${what}: ${issues}.`);
  }
  return parsed.data;
}
