"use client";
// Small helpers shared by the per-resource hooks.
import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useToast } from "@/lib/toast";
import { errorMessage } from "./client";
import { useConsole } from "./provider";

/** Query keys start with the workspace, so switching workspace never shows stale data. */
export function useKey() {
  const { workspaceId } = useConsole();
  return (...parts: unknown[]): QueryKey => ["ws", workspaceId ?? "default", ...parts];
}

/**
 * A mutation that reports its outcome as a toast (the API's own message on failure) and
 * invalidates the given query prefixes on success.
 */
export function useApiMutation<TVars, TResult>(
  fn: (vars: TVars) => Promise<TResult>,
  options: {
    success?: string | ((result: TResult, vars: TVars) => string | null);
    invalidate?: unknown[][];
    /**
     * Mark the `invalidate` prefixes stale without refetching them now: after a delete, the page still
     * shows the deleted resource until it navigates away, and refetching its queries would be 404s.
     * Pages mounted afterwards refetch what is stale.
     */
    staleOnly?: boolean;
    onSuccess?: (result: TResult, vars: TVars) => void;
    /** Forms that show errors inline set this to false. */
    toastErrors?: boolean;
  } = {},
) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const key = useKey();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (result, vars) => {
      const refetchType = options.staleOnly ? "none" : "active";
      for (const prefix of options.invalidate ?? []) await queryClient.invalidateQueries({ queryKey: key(...prefix), refetchType });
      const message = typeof options.success === "function" ? options.success(result, vars) : options.success;
      if (message) toast.success(message);
      options.onSuccess?.(result, vars);
    },
    onError: (err) => {
      if (options.toastErrors !== false) toast.error(errorMessage(err));
    },
  });
}
