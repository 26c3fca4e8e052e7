import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import { BROKER_SENDING_FIELDS, brokerConnectionFields, nameTemplateField } from "../shared/broker-spec";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

export const natsDestinationDefinition: ConnectorDefinition = {
  name: "Nats",
  title: "NATS JetStream",
  connectorType: "destination",
  category: "Message Broker",
  icon: "/icons/nats.svg",
  documentationUrl: "https://docs.nats.io/nats-concepts/jetstream",
  streamType: "dynamic",
  // JetStream drops a repeat within its duplicate window only; the engine's delivery ledger covers the rest.
  idempotentWrites: false,
  writeModes: WRITE_MODES,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "NATS JetStream",
    type: "object",
    required: ["url", "subject_template"],
    properties: {
      ...brokerConnectionFields("nats://nats.example.com:4222", ["nats", "tls"]),
      token: {
        type: "string",
        title: "Token",
        description:
          "Authentication token, for servers that use token authentication instead of a user and password.",
        secret: true,
        multiwoven_secret: true,
        maxLength: 4096,
        order: 3,
      },
      subject_template: nameTemplateField(
        "Subject template",
        "Liquid template of the subject over the record's fields, e.g. orders.{{ region }}.created. A JetStream stream must capture it.",
        4,
      ),
      expected_stream: {
        type: "string",
        title: "Expected stream",
        description:
          "When set, a message stored by any other stream fails (JetStream's Nats-Expected-Stream).",
        maxLength: 256,
        order: 5,
      },
      ...BROKER_SENDING_FIELDS,
    },
  },
};
