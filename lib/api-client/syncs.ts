"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-config/statuses";
import type { CreateSyncInput, UpdateSyncInput } from "@/lib/validation/syncs";
import type { ListResponse, Resource, Sync, SyncAttributes, SyncConfigurations, SyncRecordAttributes, SyncRun, SyncRunAttributes } from "./types";
import { useApi } from "./provider";
import { unwrap, useApiMutation, useKey } from "./query";

export function useSyncs(params: {
  page: number;
  perPage: number;
  refetch?: boolean;
  sourceId?: string;
  destinationId?: string;
  modelId?: string;
}) {
  const api = useApi();
  const key = useKey();
  const { refetch: _refetch, ...filters } = params;
  return useQuery({
    queryKey: key("syncs", filters),
    queryFn: () =>
      api.get<ListResponse<SyncAttributes>>("/api/v1/syncs", {
        page: params.page,
        per_page: params.perPage,
        source_id: params.sourceId,
        destination_id: params.destinationId,
        model_id: params.modelId,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: params.refetch ? 10_000 : false,
  });
}

export function useSync(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("syncs", "one", String(id)),
    queryFn: async () => unwrap<Sync>(await api.get(`/api/v1/syncs/${id}`)),
    enabled: id !== undefined && id !== "",
    refetchInterval: (q) => (q.state.data?.attributes.last_run?.status && ACTIVE_RUN_STATUSES.has(q.state.data.attributes.last_run.status) ? 3_000 : false),
  });
}

export function useSyncConfigurations() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("syncs", "configurations"),
    queryFn: () => api.get<SyncConfigurations>("/api/v1/syncs/configurations"),
    staleTime: 10 * 60_000,
  });
}

export function useCreateSync() {
  const api = useApi();
  return useApiMutation(async (sync: CreateSyncInput) => unwrap<Sync>(await api.post("/api/v1/syncs", { sync })), {
    success: (s) => `Sync "${s.attributes.name ?? s.id}" created.`,
    invalidate: [["syncs"]],
    toastErrors: false,
  });
}

export function useUpdateSync(id: string) {
  const api = useApi();
  return useApiMutation(
    async (sync: UpdateSyncInput) => unwrap<Sync>((await api.put<{ data: Sync }>(`/api/v1/syncs/${id}`, { sync })).data),
    { success: "Sync saved.", invalidate: [["syncs"]], toastErrors: false },
  );
}

export function useDeleteSync() {
  const api = useApi();
  return useApiMutation((s: Sync) => api.delete(`/api/v1/syncs/${s.id}`), {
    success: (_r, s) => `Sync "${s.attributes.name ?? s.id}" deleted.`,
    invalidate: [["syncs"]],
  });
}

export function useEnableSync(id: string) {
  const api = useApi();
  return useApiMutation((enable: boolean) => api.patch(`/api/v1/syncs/${id}/enable`, { enable }), {
    success: (_r, enable) => (enable ? "Sync enabled." : "Sync disabled."),
    invalidate: [["syncs"]],
  });
}

export function useRunSync(id: string) {
  const api = useApi();
  return useApiMutation(() => api.post<{ message?: string }>("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(id) } }), {
    success: (r) => r?.message ?? "Run started.",
    invalidate: [["syncs"], ["runs", id]],
  });
}

export function useCancelSync(id: string) {
  const api = useApi();
  return useApiMutation(() => api.delete<{ message?: string }>(`/api/v1/schedule_syncs/${id}`), {
    success: (r) => r?.message ?? "Run canceled.",
    invalidate: [["syncs"], ["runs", id]],
  });
}

export function useTestSync(id: string) {
  const api = useApi();
  return useApiMutation(() => api.post<{ message?: string }>(`/enterprise/api/v1/syncs/${id}/test`), {
    success: (r) => r?.message ?? "Test run started.",
    invalidate: [["syncs"], ["runs", id]],
  });
}

const isActive = (run?: { attributes: { status: string } }) => Boolean(run && ACTIVE_RUN_STATUSES.has(run.attributes.status));

export function useSyncRuns(syncId: string, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "list", page),
    queryFn: () => api.get<ListResponse<SyncRunAttributes>>(`/api/v1/syncs/${syncId}/sync_runs`, { page, per_page: 20 }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.data.some(isActive) ? 2_000 : false),
  });
}

export function useSyncRun(syncId: string, runId: string) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "one", runId),
    queryFn: async () => unwrap<SyncRun>(await api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)),
    refetchInterval: (q) => (isActive(q.state.data) ? 1_500 : false),
  });
}

export function useSyncRecords(syncId: string, runId: string, params: { page: number; status?: string; action?: string; live?: boolean }) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "records", runId, params.page, params.status, params.action),
    queryFn: () =>
      api.get<ListResponse<SyncRecordAttributes>>(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records`, {
        page: params.page,
        per_page: 25,
        status: params.status,
        action: params.action,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: params.live ? 3_000 : false,
  });
}

export interface ReportPoint {
  time_slice: string;
  total_count: number;
  failed_count: number;
  success_count: number;
}

export function useWorkspaceActivity(timePeriod: "one_day" | "one_week") {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("reports", timePeriod),
    queryFn: async () =>
      (
        await api.get<{ data: { sync_run_triggered?: ReportPoint[]; total_sync_run_rows?: ReportPoint[] } }>("/api/v1/reports", {
          type: "workspace_activity",
          time_period: timePeriod,
          metric: "all",
        })
      ).data,
    refetchInterval: 30_000,
  });
}

export type { Resource };
