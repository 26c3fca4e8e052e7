// The sync wizard's steps, in order: model → destination → stream → field mappings → mode and
// cursor → schedule → name. The wizard knows steps only through this list.
import { DestinationStep } from "./destination-step";
import { MappingStep, validateMappings } from "./mapping-step";
import { ModeStep } from "./mode-step";
import { ModelStep } from "./model-step";
import { NameStep } from "./name-step";
import { SCHEDULE_FIELDS, ScheduleStep } from "./schedule-step";
import type { WizardStep } from "./step";
import { StreamStep } from "./stream-step";

export const STEPS: readonly WizardStep[] = [
  { id: "model", title: "Model", heading: () => "Which model's rows should be synced?", fields: ["model_id", "source_id"], Component: ModelStep },
  { id: "destination", title: "Destination", heading: () => "Where should the rows go?", fields: ["destination_id"], Component: DestinationStep },
  {
    id: "stream",
    title: "Stream",
    heading: (data) => `Which stream of “${data.destination?.attributes.name ?? "the destination"}”?`,
    description: "A stream is a table, object or endpoint of the destination.",
    fields: ["stream_name"],
    Component: StreamStep,
  },
  {
    id: "mapping",
    title: "Mapping",
    heading: () => "Map model columns to destination fields",
    description: "Required destination fields are pre-filled. Templates show their value on a sample row.",
    fields: ["configuration"],
    validate: validateMappings,
    Component: MappingStep,
  },
  { id: "mode", title: "Mode", heading: () => "How should changes be sent?", fields: ["sync_mode", "cursor_field", "write_mode", "detect_deletes", "live"], Component: ModeStep },
  { id: "schedule", title: "Schedule", heading: () => "When should it run?", fields: [...SCHEDULE_FIELDS], Component: ScheduleStep },
  { id: "name", title: "Name", heading: () => "Name the sync", fields: ["name", "description"], Component: NameStep },
];

/** The step that owns a field (of an API error's path such as "configuration.0.to"), or -1. */
export function stepOfField(path: string): number {
  const field = path.split(/[.[]/)[0];
  return STEPS.findIndex((s) => s.fields.some((f) => f === field));
}
