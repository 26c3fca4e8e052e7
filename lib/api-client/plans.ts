"use client";
// The dry-run plan of a sync's next run, and approving a run its blast-radius limits held.
import { useCallback, useRef } from "react";
import { useApi } from "./provider";
import { useApiMutation } from "./query";
import type { paths } from "./generated/openapi";
import type { SyncPlan } from "./types";

/** POST /syncs/{id}/plan: computed on demand (it reads the whole model), never cached. */
export function usePlanSync(syncId: string) {
  const api = useApi();
  const plan = async (sampleSize?: number): Promise<SyncPlan> =>
    (
      await api.ok(
        api.POST("/api/v1/syncs/{id}/plan", { params: { path: { id: Number(syncId) } }, body: sampleSize === undefined ? undefined : { sample_size: sampleSize } }),
      )
    ).data;
  return useApiMutation(plan, { toastErrors: false });
}

/** The changes a settings section would save, as POST /syncs/{id}/plan's `sync` takes them. */
export type ProposedChanges = NonNullable<NonNullable<PlanBody>["sync"]>;
type PlanBody = paths["/api/v1/syncs/{id}/plan"]["post"]["requestBody"] extends { content: { "application/json": infer B } } | undefined ? B : never;

/**
 * POST /syncs/{id}/plan with unsaved changes: what the next run would send once they are saved.
 * `cancel()` aborts the request in flight (a new plan also aborts the one before): the server stops
 * reading the model and frees its plan slot (the route hands the request's signal to the engine).
 */
export function usePlanChanges(syncId: string) {
  const api = useApi();
  const inFlight = useRef<AbortController | null>(null);
  const cancel = useCallback(() => {
    inFlight.current?.abort();
    inFlight.current = null;
  }, []);
  const plan = async (changes: ProposedChanges): Promise<SyncPlan> => {
    cancel();
    const controller = new AbortController();
    inFlight.current = controller;
    try {
      const answer = api.POST("/api/v1/syncs/{id}/plan", { params: { path: { id: Number(syncId) } }, body: { sync: changes }, signal: controller.signal });
      return (await api.ok(answer)).data;
    } finally {
      if (inFlight.current === controller) inFlight.current = null;
    }
  };
  return { ...useApiMutation(plan, { toastErrors: false }), cancel };
}

export function useApproveRun(syncId: string) {
  const api = useApi();
  // The plan the person saw: a run held again since with another plan is then refused, not approved unseen.
  const approve = ({ runId, plannedAt }: { runId: string; plannedAt?: string }) =>
    api.ok(
      api.POST("/api/v1/syncs/{sync_id}/sync_runs/{id}/approve", {
        params: { path: { sync_id: Number(syncId), id: Number(runId) } },
        body: plannedAt === undefined ? undefined : { planned_at: plannedAt },
      }),
    );
  return useApiMutation(approve, {
    success: (r) => r?.message ?? "Run approved.",
    invalidate: [["syncs"], ["runs", syncId]],
  });
}
