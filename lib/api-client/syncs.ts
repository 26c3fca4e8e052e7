"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { SYNC_RECORD_ACTIONS, SYNC_RECORD_STATUSES } from "@/lib/validation/sync-records";
import type { CreateSyncInput, UpdateSyncInput } from "@/lib/validation/syncs";
import type { Resource, Sync, SyncConfigurations } from "./types";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";
import { runChanged } from "./runs";

/** A filter the API knows (the console's selects offer nothing else); empty means any. */
const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined => values.find((v) => v === value);

/** A picker's id filter: empty means any. */
const optionalId = (id: string | undefined) => (id ? Number(id) : undefined);

export function useSyncs(params: {
  page: number;
  perPage: number;
  refetch?: boolean;
  sourceId?: string;
  destinationId?: string;
  modelId?: string;
  /** true: only the syncs that need attention (the badge's judgement, over the whole workspace). */
  needsAttention?: boolean;
  /** A sort field of the list (`-last_run_at`: latest run first); the API's default otherwise. */
  sort?: "-last_run_at";
}) {
  const api = useApi();
  const key = useKey();
  const { refetch: _refetch, ...filters } = params;
  return useQuery({
    queryKey: key("syncs", filters),
    queryFn: async () => {
      return api.ok(
        api.GET("/api/v1/syncs", {
          params: {
            query: {
              page: params.page,
              per_page: params.perPage,
              source_id: optionalId(params.sourceId),
              destination_id: optionalId(params.destinationId),
              model_id: optionalId(params.modelId),
              needs_attention: params.needsAttention === undefined ? undefined : params.needsAttention ? "true" : "false",
              sort: params.sort,
            },
          },
        }),
      );
    },
    // Another page of the same list keeps the rows on screen until it arrives; another filter does
    // not (its rows would stand under the new filter's name).
    placeholderData: (previous, query) => (query && sameList(query.queryKey.at(-1), filters) ? previous : undefined),
    refetchInterval: params.refetch ? 10_000 : false,
  });
}

/** Whether two syncs-list keys' filters differ only in the page. */
function sameList(previous: unknown, next: Record<string, unknown>): boolean {
  if (typeof previous !== "object" || previous === null) return false;
  const { page: _a, ...before } = previous as Record<string, unknown>;
  const { page: _b, ...after } = next;
  return JSON.stringify(before) === JSON.stringify(after);
}

export function useSync(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("syncs", "one", String(id)),
    queryFn: async () => await api.ok(api.GET("/api/v1/syncs/{id}", { params: { path: { id: Number(id) } } })),
    enabled: id !== undefined && id !== "",
    refetchInterval: (q) => (q.state.data?.attributes.last_run?.status && ACTIVE_RUN_STATUSES.has(q.state.data.attributes.last_run.status) ? 3_000 : false),
  });
}

export function useSyncConfigurations() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("syncs", "configurations"),
    queryFn: async () => {
      const body = await api.ok(api.GET("/api/v1/syncs/configurations"));
      // The document leaves this fixed payload's members as free JSON; the console reads the ones it knows.
      return body as typeof body & SyncConfigurations;
    },
    staleTime: 10 * 60_000,
  });
}

export function useCreateSync() {
  const api = useApi();
  // The sync comes at the top level (the API contract), and again under `data`.
  return useApiMutation(async (sync: CreateSyncInput) => await api.ok(api.POST("/api/v1/syncs", { body: { sync } })), {
    success: (s) => `Sync "${s.attributes.name ?? s.id}" created.`,
    invalidate: [["syncs"]],
    toastErrors: false,
  });
}

export function useUpdateSync(id: string) {
  const api = useApi();
  return useApiMutation(
    async (sync: UpdateSyncInput) =>
      (await api.ok(api.PUT("/api/v1/syncs/{id}", { params: { path: { id: Number(id) } }, body: { sync } }))).data,
    { success: "Sync saved.", invalidate: [["syncs"]], toastErrors: false },
  );
}

export function useDeleteSync() {
  const api = useApi();
  return useApiMutation((s: Sync) => api.ok(api.DELETE("/api/v1/syncs/{id}", { params: { path: { id: Number(s.id) } } })), {
    success: (_r, s) => `Sync "${s.attributes.name ?? s.id}" deleted.`,
    invalidate: [["syncs"]],
  });
}

export function useEnableSync(id: string) {
  const api = useApi();
  const enableSync = (enable: boolean) =>
    api.ok(api.PATCH("/api/v1/syncs/{id}/enable", { params: { path: { id: Number(id) } }, body: { enable } }));
  return useApiMutation(enableSync, {
    success: (_r, enable) => (enable ? "Sync enabled." : "Sync disabled."),
    invalidate: [["syncs"]],
  });
}

export function useRunSync(id: string) {
  const api = useApi();
  const run = () => api.ok(api.POST("/api/v1/schedule_syncs", { body: { schedule_sync: { sync_id: Number(id) } } }));
  return useApiMutation(run, {
    success: (r) => r?.message ?? "Run started.",
    invalidate: [["syncs"], ["runs", id]],
  });
}

export function useCancelSync(id: string) {
  const api = useApi();
  const cancel = () => api.ok(api.DELETE("/api/v1/schedule_syncs/{sync_id}", { params: { path: { sync_id: Number(id) } } }));
  return useApiMutation(cancel, {
    success: (r) => r?.message ?? "Run canceled.",
    invalidate: runChanged(id),
  });
}

const isActive = (run?: { attributes: { status: string } }) => Boolean(run && ACTIVE_RUN_STATUSES.has(run.attributes.status));

export function useSyncRuns(syncId: string, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "list", page),
    queryFn: async () => {
      return api.ok(
        api.GET("/api/v1/syncs/{sync_id}/sync_runs", { params: { path: { sync_id: Number(syncId) }, query: { page, per_page: 20 } } }),
      );
    },
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.data.some(isActive) ? 2_000 : false),
  });
}

export function useSyncRun(syncId: string, runId: string) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "one", runId),
    queryFn: async () =>
      (await api.ok(api.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}", { params: { path: { sync_id: Number(syncId), id: Number(runId) } } })))
        .data,
    refetchInterval: (q) => (isActive(q.state.data) ? 1_500 : false),
  });
}

export function useSyncRecords(
  syncId: string,
  runId: string,
  params: { page: number; status?: string; action?: string; primaryKey?: string; live?: boolean },
) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "records", runId, params.page, params.status, params.action, params.primaryKey),
    queryFn: async () => {
      return api.ok(
        api.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records", {
          params: {
            path: { sync_id: Number(syncId), sync_run_id: Number(runId) },
            query: {
              page: params.page,
              per_page: 25,
              status: oneOf(SYNC_RECORD_STATUSES, params.status),
              action: oneOf(SYNC_RECORD_ACTIONS, params.action),
              primary_key: params.primaryKey || undefined,
            },
          },
        }),
      );
    },
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
        await api.ok<{ data: { sync_run_triggered?: ReportPoint[]; total_sync_run_rows?: ReportPoint[] } }>(
          api.GET("/api/v1/reports", { params: { query: { type: "workspace_activity", time_period: timePeriod, metric: "all" } } }),
        )
      ).data,
    refetchInterval: 30_000,
  });
}

export type { Resource };
