"use client";
// One run's own actions and reads: cancel it, the plan it was held with (sample rows), and how many
// of its failed records are still undelivered (whether "Retry failed records" is offered).
import { useQuery } from "@tanstack/react-query";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

const path = (syncId: string, runId: string) => ({ path: { sync_id: Number(syncId), id: Number(runId) } });

/**
 * Everything a run's end changes: its sync (badge, last run), its runs, the dashboard's activity.
 * Invalidated after a cancel (and a retry) so the run page, the sync page and the dashboard agree without a reload.
 */
export const runChanged = (syncId: string): unknown[][] => [["syncs"], ["runs", syncId], ["reports"], ["sequence_runs"]];

/** POST …/sync_runs/{id}/cancel: this run, whatever else the sync runs meanwhile. */
export function useCancelRun(syncId: string, runId: string) {
  const api = useApi();
  const cancel = () => api.ok(api.POST("/api/v1/syncs/{sync_id}/sync_runs/{id}/cancel", { params: path(syncId, runId) }));
  return useApiMutation(cancel, { success: (r) => r?.message ?? "Run canceled.", invalidate: runChanged(syncId) });
}

/** The plan a run kept, with the samples it was held with; only asked by who may read records. */
export function useRunPlan(syncId: string, runId: string, enabled: boolean) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    // Not under "runs": a held run's samples never change, and refetching them once it was approved (its plan
    // gone) would be a 404.
    queryKey: key("run-plans", syncId, runId),
    staleTime: Infinity,
    queryFn: async () => (await api.ok(api.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}/plan", { params: path(syncId, runId) }))).data,
    enabled,
  });
}

/** How many of a finished run's failed records are still undelivered. */
export function useUndeliveredRows(syncId: string, runId: string, enabled: boolean) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "undelivered", runId),
    queryFn: async () => (await api.ok(api.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}/undelivered", { params: path(syncId, runId) }))).data,
    // A later run may have delivered them since this page was last open: ask again on every visit.
    refetchOnMount: "always",
    enabled,
  });
}
