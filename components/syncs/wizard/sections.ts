// The sections of a sync's settings view (sync-settings.tsx): each reuses a wizard step's fields and
// component, and saves alone with a body of just its fields (the API's update takes any subset).
import type { UpdateSyncInput } from "@/lib/validation/syncs";
import { scheduleUses } from "@/lib/validation/syncs";
import { normalizeConfiguration } from "@/lib/sync-rules/mapping";
import type { Sync } from "@/lib/api-client/types";
import { describeSchedule } from "../schedule";
import { detectsDeletes, WRITE_MODE_LABELS } from "@/lib/sync-rules/write-mode";
import type { SyncFormInput } from "./form";
import { GuardStep } from "./guard-step";
import type { WizardStep } from "./step";
import { STEPS } from "./steps";

type Values = SyncFormInput["sync"];

export interface SettingsSection {
  step: WizardStep;
  title: string;
  /** One line saying what is saved now. */
  summary: (sync: Sync) => string;
  /** The update body of this section alone. */
  body: (values: Values) => UpdateSyncInput;
}

const stepOf = (id: WizardStep["id"]) => STEPS.find((s) => s.id === id)!;

/** Not a wizard step: a new sync starts with the defaults; the limits are tuned once it exists. */
const GUARD_STEP: WizardStep = {
  id: "guard",
  title: "Limits",
  heading: () => "When should a run stop for approval?",
  fields: ["guard"],
  Component: GuardStep,
};

const limit = (p: number | null) => (p === null ? "no limit" : `at most ${p}%`);

export const SECTIONS: readonly SettingsSection[] = [
  {
    step: stepOf("name"),
    title: "Name",
    summary: (s) => s.attributes.name || "No name (lists show model → destination)",
    body: (v) => ({ name: v.name?.trim() || null, description: v.description ?? "" }),
  },
  {
    step: stepOf("mapping"),
    title: "Mapping",
    summary: (s) => {
      const n = normalizeConfiguration(s.attributes.configuration).length;
      return n === 0 ? "No mappings: rows are sent as they are" : `${n} field mapping${n === 1 ? "" : "s"} to stream ${s.attributes.stream_name}`;
    },
    body: (v) => ({ configuration: v.configuration }),
  },
  {
    step: stepOf("mode"),
    title: "Mode",
    summary: (s) =>
      `${s.attributes.sync_mode === "incremental" ? "Incremental" : "Full refresh"}${s.attributes.cursor_field ? ` (cursor ${s.attributes.cursor_field})` : ""}, write mode ${WRITE_MODE_LABELS[s.attributes.write_mode]}, detect deletes ${detectsDeletes({ writeMode: s.attributes.write_mode, detectDeletes: s.attributes.detect_deletes }) ? "on" : "off"}${s.attributes.live ? ", live" : ""}`,
    body: (v) => ({ sync_mode: v.sync_mode, write_mode: v.write_mode, detect_deletes: v.detect_deletes, live: v.live }),
  },
  {
    step: GUARD_STEP,
    title: "Limits",
    summary: (s) => {
      const g = s.attributes.effective_guard;
      const rows = g.max_change_rows === null ? "" : ` and ${g.max_change_rows.toLocaleString("en-US")} rows`;
      return `Deletes ${limit(g.max_delete_percent)}, changes ${limit(g.max_change_percent)}${rows}, empty extract ${g.refuse_empty_extract ? "refused" : "allowed"}${s.attributes.guard === null ? " (defaults)" : ""}`;
    },
    body: (v) => ({ guard: v.guard }),
  },
  {
    step: stepOf("schedule"),
    title: "Schedule",
    summary: (s) => describeSchedule(s.attributes),
    // Only the values the schedule type runs on; the others are cleared (null), as the API wants.
    body: (v) => {
      const { useCron, useInterval } = scheduleUses(v);
      return {
        schedule_type: v.schedule_type,
        sync_interval: useInterval ? v.sync_interval : null,
        sync_interval_unit: useInterval ? v.sync_interval_unit : null,
        cron_expression: useCron ? v.cron_expression : null,
        timezone: useCron ? v.timezone : undefined,
      };
    },
  },
];
