"use client";
// One record of a run opened for debugging, the CSV export of a run's records, and test runs.
import { useQuery } from "@tanstack/react-query";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { SYNC_RECORD_ACTIONS, SYNC_RECORD_STATUSES } from "@/lib/validation/sync-records";
import type { ApiClient } from "./client";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined => values.find((v) => v === value);

export function useSyncRecordDetail(syncId: string, runId: string, recordId: string) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "record", runId, recordId),
    queryFn: async () =>
      (
        await api.ok(
          api.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/{id}", {
            params: { path: { sync_id: Number(syncId), sync_run_id: Number(runId), id: recordId } },
          }),
        )
      ).data,
  });
}

export interface RecordFilter {
  status?: string;
  action?: string;
  primaryKey?: string;
}

/**
 * Downloads the run's records as CSV with the filters applied. Fetched (the Workspace-Id header must
 * go with it, which a plain link cannot send), then handed to the browser as a file.
 */
export async function downloadRecordsCsv(api: ApiClient, syncId: string, runId: string, filter: RecordFilter): Promise<void> {
  const answer = await api.ok(
    api.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/export", {
      params: {
        path: { sync_id: Number(syncId), sync_run_id: Number(runId) },
        query: {
          status: oneOf(SYNC_RECORD_STATUSES, filter.status),
          action: oneOf(SYNC_RECORD_ACTIONS, filter.action),
          primary_key: filter.primaryKey || undefined,
        },
      },
      parseAs: "blob",
    }),
  );
  const blob = answer as unknown;
  if (!(blob instanceof Blob)) throw new Error("The export did not arrive as a file.");
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `sync-${syncId}-run-${runId}-records${filter.status ? `-${filter.status}` : ""}.csv`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Starts a test run with the row of `primaryKey` (or a random row) and answers the run. */
export function useTestSync(id: string) {
  const api = useApi();
  const test = async (primaryKey: string | undefined) => {
    const answer = await api.ok(
      api.POST("/enterprise/api/v1/syncs/{sync_id}/test", {
        params: { path: { sync_id: Number(id) } },
        body: primaryKey ? { primary_key: primaryKey } : {},
      }),
    );
    return answer.data;
  };
  // The result shows inline (TestRunResult), not as a toast.
  return useApiMutation(test, { success: () => null, invalidate: [["syncs"], ["runs", id]], toastErrors: false });
}

/** A test run and its one record, polled until the run ends. */
export function useTestRunResult(syncId: string, runId: string | null) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("runs", syncId, "test-result", runId),
    enabled: runId !== null,
    queryFn: async () => {
      const path = { sync_id: Number(syncId), id: Number(runId) };
      const run = (await api.ok(api.GET("/api/v1/syncs/{sync_id}/sync_runs/{id}", { params: { path } }))).data;
      if (ACTIVE_RUN_STATUSES.has(run.attributes.status)) return { run, record: null };
      const list = await api.ok(
        api.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records", {
          params: { path: { sync_id: Number(syncId), sync_run_id: Number(runId) }, query: { per_page: 1 } },
        }),
      );
      const first = list.data[0] ?? null;
      const record = first
        ? (
            await api.ok(
              api.GET("/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/{id}", {
                params: { path: { sync_id: Number(syncId), sync_run_id: Number(runId), id: first.id } },
              }),
            )
          ).data
        : null;
      return { run, record };
    },
    refetchInterval: (q) => (q.state.data && !ACTIVE_RUN_STATUSES.has(q.state.data.run.attributes.status) ? false : 1_000),
  });
}
