// The walk's steps for webhook subscriptions (see contract-walk.ts). The URL is a closed local port:
// deliveries fail and retry quietly, which the document allows as much as a success.
import { expect } from "@playwright/test";
import { attribute, createdId, expectStatus, idOf } from "./contract-fixtures";
import type { Steps } from "./contract-walk";

const SUBSCRIPTION = { url: "http://127.0.0.1:9/contract-walk", events: ["sync_run.failed" as const] };

export const WEBHOOK_STEPS = {
  listWebhookSubscriptions: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/webhook_subscriptions"), 200);
  },
  createWebhookSubscription: async (fx) => {
    const body = await expectStatus((await fx.admin()).POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }), 201);
    expect(attribute(body, "secret")).toMatch(/^whsec_[0-9a-f]{64}$/);
  },
  getWebhookSubscription: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(admin.GET("/api/v1/webhook_subscriptions/{id}", { params: { path: { id } } }), 200);
  },
  updateWebhookSubscription: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(
      admin.PUT("/api/v1/webhook_subscriptions/{id}", { params: { path: { id } }, body: { webhook_subscription: { enabled: false } } }),
      200,
    );
  },
  deleteWebhookSubscription: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(admin.DELETE("/api/v1/webhook_subscriptions/{id}", { params: { path: { id } } }), 204);
  },
  rotateWebhookSecret: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(admin.POST("/api/v1/webhook_subscriptions/{id}/rotate_secret", { params: { path: { id } } }), 200);
  },
  testWebhookSubscription: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(admin.POST("/api/v1/webhook_subscriptions/{id}/test", { params: { path: { id } } }), 201);
  },
  listWebhookDeliveries: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    await expectStatus(admin.POST("/api/v1/webhook_subscriptions/{id}/test", { params: { path: { id } } }), 201);
    await expectStatus(admin.GET("/api/v1/webhook_subscriptions/{id}/deliveries", { params: { path: { id } } }), 200);
  },
  redeliverWebhookDelivery: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(admin.POST("/api/v1/webhook_subscriptions", { body: { webhook_subscription: SUBSCRIPTION } }));
    const deliveryId = idOf(await expectStatus(admin.POST("/api/v1/webhook_subscriptions/{id}/test", { params: { path: { id } } }), 201));
    await expectStatus(
      admin.POST("/api/v1/webhook_subscriptions/{id}/deliveries/{delivery_id}/redeliver", { params: { path: { id, delivery_id: deliveryId } } }),
      201,
    );
  },
} satisfies Steps;
