// Plans: the answer of POST /syncs/{id}/plan, and a run's stored plan read back defensively (a JSON
// column: anything that is not a plan reads as none).
import type { SyncPlan } from "@/lib/engine";
import { z } from "zod";
import { planSamplesSchema, runPlanSchema, type RunPlanAttributes, type SyncPlanBody, type SyncRunPlanBody } from "./plans.schema";

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

/** The samples a held run kept beside its plan (plan/guard-step.ts); null when it kept none. */
function storedSamples(stored: unknown): SyncRunPlanBody["data"]["samples"] {
  if (stored === null || typeof stored !== "object") return null;
  const parsed = planSamplesSchema.safeParse((stored as { samples?: unknown }).samples);
  return parsed.success ? parsed.data : null;
}

/** GET …/sync_runs/{id}/plan; null when the run kept no plan. */
export function serializeRunPlan(runId: number, stored: unknown): SyncRunPlanBody | null {
  const plan = storedRunPlan(stored);
  return plan === null ? null : { data: { sync_run_id: runId, ...plan, samples: storedSamples(stored) } };
}
