// The API's field errors of a sync body, put where the person sees them: on the field's control
// when a step has one, else as a sentence under the step that owns the field.
import { fieldErrors } from "@/lib/api-client/client";
import type { WizardStep, SyncForm } from "./step";
import { stepOfField, STEPS } from "./steps";

/** Fields no one control shows (the mapping list): their errors are sentences under the step. Mapping messages name their mapping. */
const WITHOUT_CONTROL = new Set(["configuration", "guard"]);

export function serverErrorsByStep(err: unknown, form: SyncForm): { found: Partial<Record<WizardStep["id"], string[]>>; first: number } {
  const found: Partial<Record<WizardStep["id"], string[]>> = {};
  let first = -1;
  for (const [path, message] of Object.entries(fieldErrors(err, "sync"))) {
    const at = stepOfField(path);
    if (at < 0) continue;
    const field = STEPS[at].fields.find((f) => f === path && !WITHOUT_CONTROL.has(f));
    if (field) form.setError(`sync.${field}`, { message });
    else found[STEPS[at].id] = [...(found[STEPS[at].id] ?? []), path.startsWith("configuration") ? message : `${path}: ${message}`];
    first = first < 0 ? at : Math.min(first, at);
  }
  return { found, first };
}
