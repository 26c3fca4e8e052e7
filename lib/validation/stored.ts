// Reading JSON columns back: checked with the schema of their shape instead of cast, so a row that
// does not match (edited by hand, written by an older version) fails loudly where it is read.
import type { z } from "zod";
import { Conflict } from "@/lib/errors";

/**
 * A stored value that does not match its shape. Not a server fault to retry (the same read fails
 * again) but a resource in a state the server cannot use until it is saved again: a 409 naming the
 * value and where it differs, never a 500. The engine turns it into a run that fails with this sentence.
 */
export class MalformedStoredValue extends Conflict {}

/** `json` as `schema` describes it, or MalformedStoredValue naming `what` (e.g. "policies of role 3") and where it differs. */
export function parseStored<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new MalformedStoredValue(`Malformed stored ${what}: ${issues}.`);
  }
  return parsed.data;
}
