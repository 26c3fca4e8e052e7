import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import { BROKER_SENDING_FIELDS, brokerConnectionFields, nameTemplateField } from "../shared/broker-spec";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { topicTemplateProblems } from "./topic";

export const mqttDestinationDefinition: ConnectorDefinition = {
  name: "Mqtt",
  title: "MQTT",
  connectorType: "destination",
  category: "Message Broker",
  icon: "/icons/mqtt.svg",
  documentationUrl: "https://docs.oasis-open.org/mqtt/mqtt/v5.0/mqtt-v5.0.html",
  streamType: "dynamic",
  // A message published twice is delivered twice: the engine keeps a delivery ledger.
  idempotentWrites: false,
  writeModes: WRITE_MODES,
  secretTargetFields: ["url"],
  // Fixed text no record can turn into a topic (a line feed, a wildcard) is refused on save.
  configurationProblems: topicTemplateProblems,
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "MQTT",
    type: "object",
    required: ["url", "topic_template"],
    properties: {
      ...brokerConnectionFields("mqtt://mqtt.example.com:1883", ["mqtt", "mqtts"]),
      client_id: {
        type: "string",
        title: "Client ID",
        description: "MQTT client identifier; empty: a new random one per connection.",
        maxLength: 128,
        order: 3,
      },
      topic_template: nameTemplateField(
        "Topic template",
        "Liquid template of the topic over the record's fields, e.g. devices/{{ device_id }}/state.",
        4,
      ),
      retain: {
        type: "boolean",
        title: "Retain",
        description:
          "Publish retained messages: the broker keeps the last one per topic for new subscribers.",
        default: false,
        order: 5,
      },
      ...BROKER_SENDING_FIELDS,
    },
  },
};
