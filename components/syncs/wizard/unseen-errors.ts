// No hidden field may block a form: after a failed check, the errors of fields that have no control
// on screen (a schedule field the chosen type hides, a value set without an input) are listed as
// sentences beside the step's Continue, so every error is shown next to what causes it.
import type { FieldErrors } from "react-hook-form";
import type { SyncFormField, SyncFormInput } from "./form";

const LABELS: Record<SyncFormField, string> = {
  model_id: "Model",
  source_id: "Source (from the model)",
  destination_id: "Destination",
  stream_name: "Stream",
  configuration: "Mappings",
  sync_mode: "Sync mode",
  cursor_field: "Cursor field",
  detect_deletes: "Detect deletes",
  guard: "Blast-radius limits",
  write_mode: "Write mode",
  live: "Live",
  schedule_type: "Schedule",
  sync_interval: "Every",
  sync_interval_unit: "Unit",
  cron_expression: "Cron expression",
  timezone: "Time zone",
  name: "Name",
  description: "Description",
};

/** The first message under an error node (a field's own, or one of its items'), with its path. */
function firstMessage(node: unknown, path: string): { path: string; message: string } | null {
  if (!node || typeof node !== "object") return null;
  const message = (node as { message?: unknown }).message;
  if (typeof message === "string" && message) return { path, message };
  for (const [key, child] of Object.entries(node)) {
    if (key === "ref" || key === "type") continue;
    const found = firstMessage(child, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/**
 * Sentences for the errors among `fields` that no control inside `root` shows: a control shows
 * field f when it is named `sync.f` or lists `sync.f` in its data-field attribute, and is rendered.
 */
export function unseenErrors(errors: FieldErrors<SyncFormInput>, fields: readonly SyncFormField[], root: Pick<ParentNode, "querySelector"> | null): string[] {
  const out: string[] = [];
  for (const field of fields) {
    const found = firstMessage(errors.sync?.[field], field);
    if (!found) continue;
    const shown = root?.querySelector(`[name="sync.${field}"], [data-field~="sync.${field}"]`);
    if (shown && found.path === field) continue;
    const where = found.path === field ? LABELS[field] : `${LABELS[field]} (${found.path.slice(field.length + 1)})`;
    out.push(`${where}: ${found.message}`);
  }
  return out;
}
