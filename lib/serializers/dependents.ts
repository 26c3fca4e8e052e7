// What deleting a model or a connector takes along (lib/services/catalogue/deletion.ts), field by field.
import type { DeletionPlan } from "@/lib/services/catalogue/deletion";
import { resource } from "./resource";
import type { DependentsResource } from "./dependents.schema";

/** `refusal`: why the caller may not delete it (null when they may). */
export const serializeDependents = (plan: DeletionPlan, refusal: string | null): DependentsResource =>
  resource(plan.target.id, "dependents", {
    target_type: plan.target.kind,
    target_id: plan.target.id,
    target_name: plan.target.name,
    models: plan.models.map((m) => ({ id: m.id, name: m.name })),
    syncs: plan.syncs.map((s) => ({ id: s.id, name: s.name, status: s.status, running: s.running })),
    waiting_syncs: plan.waiting.map((w) => ({ id: w.id, name: w.name, run_after: w.runAfter })),
    may_delete: refusal === null,
    refusal,
  });
