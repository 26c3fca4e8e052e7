// Plans: the answer of POST /syncs/{id}/plan, and a run's stored plan read back defensively (a JSON
// column: anything that is not a plan reads as none).
import type { SyncPlan } from "@/lib/engine";
import { z } from "zod";
import { runPlanSchema, type RunPlanAttributes, type SyncPlanBody } from "./plans.schema";

export const serializeSyncPlan = (syncId: number, plan: SyncPlan): SyncPlanBody => ({
  data: {
    sync_id: syncId,
    planned_at: plan.planned_at,
    write_mode: plan.write_mode,
    counts: { ...plan.counts },
    tracked: plan.tracked,
    full_read: plan.full_read,
    cursor: plan.cursor,
    guard: { ...plan.guard },
    exceeded: plan.exceeded,
    samples: plan.samples,
  },
});

/**
 * The stored plan's shown fields: what the engine keeps beside them (the keys an approval binds to,
 * the approved plan) is left out, never shown.
 */
const storedPlanFields = z.object(runPlanSchema.shape);

/** sync_runs.plan as the run resource shows it; null when the run did not plan (or, approved, has not planned again yet). */
export function storedRunPlan(stored: unknown): RunPlanAttributes | null {
  if (stored === null || stored === undefined) return null;
  const parsed = storedPlanFields.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
