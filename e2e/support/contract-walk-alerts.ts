// The walk's steps for alerts: channels, their test, rules and events (see contract-walk.ts).
import { expectStatus, createdId } from "./contract-fixtures";
import type { Fixtures } from "./contract-fixtures";
import type { Steps } from "./contract-walk";
import { unique } from "./data";

async function emailChannel(fx: Fixtures): Promise<number> {
  return createdId(
    (await fx.admin()).POST("/api/v1/alert_channels", {
      body: { alert_channel: { name: unique("channel"), channel_type: "email", recipients: ["ops@example.com"] } },
    }),
  );
}

async function rule(fx: Fixtures): Promise<number> {
  const channel = await emailChannel(fx);
  return createdId(
    (await fx.admin()).POST("/api/v1/alert_rules", {
      body: { alert_rule: { name: unique("rule"), condition: "run_failed", channel_ids: [channel] } },
    }),
  );
}

export const ALERT_STEPS = {
  listAlertChannels: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/alert_channels"), 200);
  },
  createAlertChannel: async (fx) => {
    await emailChannel(fx);
    await expectStatus(
      (await fx.admin()).POST("/api/v1/alert_channels", { body: { alert_channel: { name: unique("channel"), channel_type: "slack" } } }),
      422,
    );
  },
  getAlertChannel: async (fx) => {
    const id = await emailChannel(fx);
    await expectStatus((await fx.admin()).GET("/api/v1/alert_channels/{id}", { params: { path: { id } } }), 200);
  },
  updateAlertChannel: async (fx) => {
    const id = await emailChannel(fx);
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/alert_channels/{id}", { params: { path: { id } }, body: { alert_channel: { name: unique("renamed") } } }),
      200,
    );
  },
  deleteAlertChannel: async (fx) => {
    const id = await emailChannel(fx);
    await expectStatus((await fx.admin()).DELETE("/api/v1/alert_channels/{id}", { params: { path: { id } } }), 204);
  },
  testAlertChannel: async (fx) => {
    const id = await emailChannel(fx);
    await expectStatus((await fx.admin()).POST("/api/v1/alert_channels/{id}/test", { params: { path: { id } } }), 200);
  },
  listAlertRules: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/alert_rules"), 200);
  },
  createAlertRule: async (fx) => {
    await rule(fx);
  },
  getAlertRule: async (fx) => {
    const id = await rule(fx);
    await expectStatus((await fx.admin()).GET("/api/v1/alert_rules/{id}", { params: { path: { id } } }), 200);
  },
  updateAlertRule: async (fx) => {
    const id = await rule(fx);
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/alert_rules/{id}", { params: { path: { id } }, body: { alert_rule: { enabled: false } } }),
      200,
    );
  },
  deleteAlertRule: async (fx) => {
    const id = await rule(fx);
    await expectStatus((await fx.admin()).DELETE("/api/v1/alert_rules/{id}", { params: { path: { id } } }), 204);
  },
  listAlertEvents: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/alert_events", { params: { query: { per_page: 10 } } }), 200);
  },
  confirmAlertSubscription: async (fx) => {
    const email = `${unique("confirm")}@example.com`.toLowerCase();
    const id = await createdId(
      (await fx.admin()).POST("/api/v1/alert_channels", { body: { alert_channel: { name: unique("channel"), channel_type: "email", recipients: [email] } } }),
    );
    // The address keeps its state without the channel (and the workspace stays under ALERT_MAX_EMAIL_CHANNELS).
    await expectStatus((await fx.admin()).DELETE("/api/v1/alert_channels/{id}", { params: { path: { id } } }), 204);
    const token = await fx.alertLinkToken(email, "confirm");
    await expectStatus(fx.anonymous().POST("/api/v1/alert_subscriptions/confirm", { body: { token } }), 200);
    await expectStatus(fx.anonymous().POST("/api/v1/alert_subscriptions/confirm", { body: { token } }), 422);
  },
  unsubscribeAlertSubscription: async (fx) => {
    const email = `${unique("unsubscribe")}@example.com`.toLowerCase();
    const id = await createdId(
      (await fx.admin()).POST("/api/v1/alert_channels", { body: { alert_channel: { name: unique("channel"), channel_type: "email", recipients: [email] } } }),
    );
    // The address keeps its state without the channel (and the workspace stays under ALERT_MAX_EMAIL_CHANNELS).
    await expectStatus((await fx.admin()).DELETE("/api/v1/alert_channels/{id}", { params: { path: { id } } }), 204);
    const token = await fx.alertLinkToken(email, "unsubscribe");
    await expectStatus(fx.anonymous().POST("/api/v1/alert_subscriptions/unsubscribe", { body: { token } }), 200);
    await expectStatus(fx.anonymous().POST("/api/v1/alert_subscriptions/unsubscribe", { body: { token } }), 422);
  },
} satisfies Steps;
