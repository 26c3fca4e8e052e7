"use client";
// A live sync's state, lag and throughput (GET /api/v1/syncs/{id}/live), polled while the page shows it.
import { useQuery } from "@tanstack/react-query";
import { useApi } from "./provider";
import { useKey } from "./query";

/** Asked every 5 s: the server keeps each source reading 5 s, so polling faster would show nothing new. */
const POLL_MS = 5_000;

export function useSyncLive(id: string | number, enabled: boolean) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("syncs", "live", String(id)),
    queryFn: async () => (await api.ok(api.GET("/api/v1/syncs/{id}/live", { params: { path: { id: Number(id) } } }))).data,
    enabled,
    refetchInterval: enabled ? POLL_MS : false,
  });
}
