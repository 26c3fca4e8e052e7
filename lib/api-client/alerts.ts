"use client";
// Alerts: channels (and their test), rules and the events list.
import { useQuery } from "@tanstack/react-query";
import type { CreateAlertChannelInput, CreateAlertRuleInput, UpdateAlertRuleInput } from "@/lib/validation/alerts";
import type { operations } from "./generated/openapi";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

type Ok<O extends keyof operations> = operations[O]["responses"] extends { 200: { content: { "application/json": infer B } } } ? B : never;
export type AlertChannel = Ok<"getAlertChannel">["data"];
export type AlertRule = Ok<"getAlertRule">["data"];
export type AlertEvent = Ok<"listAlertEvents">["data"][number];
export type AlertTestResult = Ok<"testAlertChannel">["data"];

export function useAlertChannels() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("alert_channels"),
    queryFn: () => api.ok(api.GET("/api/v1/alert_channels", { params: { query: { page: 1, per_page: 100 } } })),
  });
}

export function useCreateAlertChannel() {
  const api = useApi();
  return useApiMutation(
    async (alert_channel: CreateAlertChannelInput) => (await api.ok(api.POST("/api/v1/alert_channels", { body: { alert_channel } }))).data,
    { success: (c) => `Channel "${c.attributes.name}" created.`, invalidate: [["alert_channels"]], toastErrors: false },
  );
}

export function useDeleteAlertChannel() {
  const api = useApi();
  return useApiMutation((c: AlertChannel) => api.ok(api.DELETE("/api/v1/alert_channels/{id}", { params: { path: { id: Number(c.id) } } })), {
    success: (_r, c) => `Channel "${c.attributes.name}" deleted.`,
    invalidate: [["alert_channels"]],
  });
}

/** The test button: the answer says whether the message went out (no success toast: the page shows it). */
export function useTestAlertChannel() {
  const api = useApi();
  return useApiMutation(
    async (c: AlertChannel): Promise<AlertTestResult> =>
      (await api.ok(api.POST("/api/v1/alert_channels/{id}/test", { params: { path: { id: Number(c.id) } } }))).data,
    { invalidate: [] },
  );
}

export function useAlertRules() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("alert_rules"),
    queryFn: () => api.ok(api.GET("/api/v1/alert_rules", { params: { query: { page: 1, per_page: 100 } } })),
    refetchInterval: 15_000,
  });
}

export function useCreateAlertRule() {
  const api = useApi();
  return useApiMutation(
    async (alert_rule: CreateAlertRuleInput) => (await api.ok(api.POST("/api/v1/alert_rules", { body: { alert_rule } }))).data,
    { success: (r) => `Alert "${r.attributes.name}" created.`, invalidate: [["alert_rules"]], toastErrors: false },
  );
}

/** The enable button and the edit form; `toastErrors: false` for the form, which shows errors inline. */
export function useUpdateAlertRule({ toastErrors = true } = {}) {
  const api = useApi();
  return useApiMutation(
    async ({ id, alert_rule }: { id: string; alert_rule: UpdateAlertRuleInput }) =>
      (await api.ok(api.PUT("/api/v1/alert_rules/{id}", { params: { path: { id: Number(id) } }, body: { alert_rule } }))).data,
    {
      success: (r, { alert_rule }) =>
        Object.keys(alert_rule).join() === "enabled" ? `Alert "${r.attributes.name}" ${r.attributes.enabled ? "enabled" : "disabled"}.` : `Alert "${r.attributes.name}" saved.`,
      invalidate: [["alert_rules"]],
      toastErrors,
    },
  );
}

export function useDeleteAlertRule() {
  const api = useApi();
  return useApiMutation((r: AlertRule) => api.ok(api.DELETE("/api/v1/alert_rules/{id}", { params: { path: { id: Number(r.id) } } })), {
    success: (_x, r) => `Alert "${r.attributes.name}" deleted.`,
    invalidate: [["alert_rules"]],
  });
}

export function useAlertEvents(page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("alert_events", page),
    queryFn: () => api.ok(api.GET("/api/v1/alert_events", { params: { query: { page, per_page: 25 } } })),
    refetchInterval: 15_000,
  });
}
