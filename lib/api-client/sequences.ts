"use client";
// "Runs after" lists and sequence runs (docs/orchestration.md, section 4).
import { useQuery } from "@tanstack/react-query";
import type { components } from "./generated/openapi";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

export type RunAfter = components["schemas"]["RunAfter"];
export type SequenceRun = components["schemas"]["SequenceRun"];
export type SequenceRunStep = components["schemas"]["SequenceRunStep"];

/** Statuses a sequence run does not leave on its own (needs_approval waits for a person). */
export const FINAL_SEQUENCE_STATUSES: ReadonlySet<SequenceRun["attributes"]["status"]> = new Set(["success", "failed", "needs_approval"]);

export function useRunAfter(syncId: string) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("run_after", syncId),
    queryFn: async () => (await api.ok(api.GET("/api/v1/syncs/{id}/run_after", { params: { path: { id: Number(syncId) } } }))).data,
  });
}

export function useSetRunAfter(syncId: string) {
  const api = useApi();
  const put = async (syncIds: number[]) =>
    (await api.ok(api.PUT("/api/v1/syncs/{id}/run_after", { params: { path: { id: Number(syncId) } }, body: { run_after: { sync_ids: syncIds } } }))).data;
  // Every sync's list may show this edge (as an upstream or a dependent), so all are re-read.
  return useApiMutation(put, { success: "Run-after list saved.", invalidate: [["run_after"]], toastErrors: false });
}

export function useStartSequenceRun(syncId: string) {
  const api = useApi();
  const start = async () => (await api.ok(api.POST("/api/v1/syncs/{id}/sequence_runs", { params: { path: { id: Number(syncId) } } }))).data;
  return useApiMutation(start, { success: "Sequence started.", invalidate: [["syncs"], ["runs", syncId]] });
}

/** A sequence run's progress, re-read every 1.5 s until its status is final (each read shows the steps as they move). */
export function useSequenceRun(id: string | null) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("sequence_runs", id),
    queryFn: async () => (await api.ok(api.GET("/api/v1/sequence_runs/{id}", { params: { path: { id: Number(id) } } }))).data,
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data && FINAL_SEQUENCE_STATUSES.has(q.state.data.attributes.status) ? false : 1_500),
  });
}
