"use client";
// Webhook subscriptions, their delivery log, and the actions on them (test, rotate, redeliver).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CreateWebhookSubscriptionInput, UpdateWebhookSubscriptionInput } from "@/lib/validation/webhook-subscriptions";
import type { components } from "./generated/openapi";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

export type WebhookSubscription = components["schemas"]["WebhookSubscription"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];

const path = (id: string | number) => ({ params: { path: { id: Number(id) } } });

export function useWebhookSubscriptions(page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("webhook_subscriptions", page),
    queryFn: () => api.ok(api.GET("/api/v1/webhook_subscriptions", { params: { query: { page, per_page: 25 } } })),
    placeholderData: keepPreviousData,
  });
}

export function useWebhookSubscription(id: string) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("webhook_subscriptions", "one", id),
    queryFn: async () => (await api.ok(api.GET("/api/v1/webhook_subscriptions/{id}", path(id)))).data,
  });
}

/** The delivery log; refreshed every few seconds while a delivery is still pending. */
export function useWebhookDeliveries(id: string, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("webhook_deliveries", id, page),
    queryFn: () =>
      api.ok(api.GET("/api/v1/webhook_subscriptions/{id}/deliveries", { params: { path: { id: Number(id) }, query: { page, per_page: 25 } } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.attributes.status === "pending") ? 2000 : false),
  });
}

export function useCreateWebhookSubscription() {
  const api = useApi();
  return useApiMutation(
    async (webhook_subscription: CreateWebhookSubscriptionInput) =>
      (await api.ok(api.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription } }))).data,
    { success: "Webhook created. Copy its signing secret now: it is not shown again.", invalidate: [["webhook_subscriptions"]], toastErrors: false },
  );
}

/** `toastErrors: false` for the edit form, which shows the API's sentence beside its fields. */
export function useUpdateWebhookSubscription(id: string, { toastErrors = true } = {}) {
  const api = useApi();
  return useApiMutation(
    async (webhook_subscription: UpdateWebhookSubscriptionInput) =>
      (await api.ok(api.PUT("/api/v1/webhook_subscriptions/{id}", { ...path(id), body: { webhook_subscription } }))).data,
    { success: "Webhook saved.", invalidate: [["webhook_subscriptions"]], toastErrors },
  );
}

export function useDeleteWebhookSubscription() {
  const api = useApi();
  return useApiMutation((id: string) => api.ok(api.DELETE("/api/v1/webhook_subscriptions/{id}", path(id))), {
    success: "Webhook deleted.",
    invalidate: [["webhook_subscriptions"]],
  });
}

export function useRotateWebhookSecret(id: string) {
  const api = useApi();
  return useApiMutation(async () => (await api.ok(api.POST("/api/v1/webhook_subscriptions/{id}/rotate_secret", path(id)))).data, {
    success: "New signing secret made. Copy it now: it is not shown again.",
    invalidate: [["webhook_subscriptions"]],
  });
}

export function useTestWebhook(id: string) {
  const api = useApi();
  return useApiMutation(async () => (await api.ok(api.POST("/api/v1/webhook_subscriptions/{id}/test", path(id)))).data, {
    success: "Test event queued; its attempts appear below.",
    invalidate: [["webhook_deliveries"]],
  });
}

export function useRedeliver(id: string) {
  const api = useApi();
  return useApiMutation(
    async (deliveryId: string) =>
      (
        await api.ok(
          api.POST("/api/v1/webhook_subscriptions/{id}/deliveries/{delivery_id}/redeliver", {
            params: { path: { id: Number(id), delivery_id: Number(deliveryId) } },
          }),
        )
      ).data,
    { success: "Delivery queued again.", invalidate: [["webhook_deliveries"]] },
  );
}
