import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

export const slackDestinationDefinition: ConnectorDefinition = {
  name: "Slack",
  title: "Slack",
  connectorType: "destination",
  category: "Team Collaboration",
  icon: "/icons/slack.svg",
  documentationUrl: "https://api.slack.com/methods/chat.postMessage",
  streamType: "dynamic",
  // Each request is an effect of its own: the engine keeps a delivery ledger (never sent twice).
  idempotentWrites: false,
  // A message once sent cannot be updated or deleted through this connector: new rows only.
  writeModes: ["insert"],
  secretTargetFields: ["base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Slack",
    type: "object",
    required: [],
    properties: {
      auth_type: {
        type: "string",
        title: "Send with",
        description: "bot_token (the default): a bot posts with chat.postMessage to a channel; webhook: an incoming webhook URL, bound to its channel.",
        enum: ["bot_token", "webhook"],
        default: "bot_token",
        order: 0,
      },
      api_token: {
        type: "string",
        title: "Bot token",
        description: "The bot user OAuth token (xoxb-…) with the chat:write scope.",
        secret: true,
        multiwoven_secret: true,
        order: 1,
      },
      channel_id: {
        type: "string",
        title: "Channel",
        description: "Channel ID or name (e.g. C0123456789 or #alerts). The bot must be a member.",
        order: 2,
      },
      // Our earlier names of the two fields above, kept for connectors saved with them; the
      // reference's names win when both are set.
      bot_token: {
        type: "string",
        title: "Bot token (earlier name)",
        description: "The bot token under the name connectors saved before api_token.",
        secret: true,
        multiwoven_secret: true,
        deprecated: true,
        order: 1,
      },
      channel: {
        type: "string",
        title: "Channel (earlier name)",
        description: "The channel under the name connectors saved before channel_id.",
        deprecated: true,
        order: 2,
      },
      webhook_url: {
        type: "string",
        title: "Incoming webhook URL",
        description: "The https://hooks.slack.com/services/… URL of an incoming webhook.",
        format: "uri",
        secret: true,
        multiwoven_secret: true,
        order: 3,
      },
      message_template: {
        type: "string",
        title: "Message template",
        description:
          "Liquid template of the message text; the payload's fields are variables (and `payload` is the whole payload). Empty: the payload as JSON.",
        multiline: true,
        order: 4,
      },
      base_url: {
        type: "string",
        title: "API base URL",
        description: "Base URL of the Slack Web API; change it only for a proxy or a test server.",
        format: "uri",
        default: "https://slack.com/api",
        order: 5,
      },
      timeout: {
        type: "integer",
        title: "Timeout (seconds)",
        description: "How long to wait for Slack to answer each message.",
        minimum: 1,
        maximum: 120,
        default: 30,
        order: 6,
      },
    },
    allOf: [
      {
        if: { properties: { auth_type: { const: "webhook" } }, required: ["auth_type"] },
        then: { required: ["webhook_url"] },
        else: {
          allOf: [
            { if: { required: ["bot_token"] }, else: { required: ["api_token"] } },
            { if: { required: ["channel"] }, else: { required: ["channel_id"] } },
          ],
        },
      },
    ],
  },
};
