import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import { BROKER_SENDING_FIELDS, brokerConnectionFields, nameTemplateField } from "../shared/broker-spec";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

export const rabbitmqDestinationDefinition: ConnectorDefinition = {
  name: "RabbitMQ",
  title: "RabbitMQ",
  connectorType: "destination",
  category: "Message Broker",
  icon: "/icons/rabbitmq.svg",
  documentationUrl: "https://www.rabbitmq.com/docs/confirms",
  streamType: "dynamic",
  // A message published twice is two messages: the engine keeps a delivery ledger.
  idempotentWrites: false,
  writeModes: WRITE_MODES,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "RabbitMQ",
    type: "object",
    required: ["url", "routing_key_template"],
    properties: {
      ...brokerConnectionFields("amqp://rabbitmq.example.com:5672/vhost", ["amqp", "amqps"]),
      exchange_template: nameTemplateField(
        "Exchange template",
        "Liquid template of the exchange to publish to, e.g. events or {{ region }}.orders; empty: the default exchange (the routing key is then a queue name). The exchange must exist.",
        3,
        { default: "" },
      ),
      routing_key_template: nameTemplateField(
        "Routing key template",
        "Liquid template of the routing key over the record's fields, e.g. customers.{{ status }}.",
        4,
      ),
      mandatory: {
        type: "boolean",
        title: "Mandatory",
        description:
          "Fail a record whose message no queue takes (returned as unroutable) instead of letting the broker drop it.",
        default: true,
        order: 5,
      },
      persistent: {
        type: "boolean",
        title: "Persistent messages",
        description: "Delivery mode 2: durable queues keep the message across a broker restart.",
        default: true,
        order: 6,
      },
      ...BROKER_SENDING_FIELDS,
    },
  },
};
