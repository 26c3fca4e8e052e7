"use client";
// The workspace's audit log, a page at a time, narrowed by the filters the API takes.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ListAuditLogsQuery } from "@/lib/validation/audit";
import type { components } from "./generated/openapi";
import { useApi } from "./provider";
import { useKey } from "./query";

export type AuditLog = components["schemas"]["AuditLog"];
export type AuditLogFilters = ListAuditLogsQuery;

export const AUDIT_PAGE_SIZE = 25;

export function useAuditLogs(filters: AuditLogFilters, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("audit_logs", filters, page),
    queryFn: () => api.ok(api.GET("/api/v1/audit_logs", { params: { query: { ...filters, page, per_page: AUDIT_PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
}
