import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import { BROKER_SENDING_FIELDS, brokerConnectionFields, nameTemplateField } from "../shared/broker-spec";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

export const redisDestinationDefinition: ConnectorDefinition = {
  name: "Redis",
  title: "Redis",
  connectorType: "destination",
  category: "Database",
  icon: "/icons/redis.svg",
  documentationUrl: "https://redis.io/docs/latest/develop/data-types/streams/",
  streamType: "dynamic",
  // A stream entry added twice is two entries: the engine keeps a delivery ledger.
  idempotentWrites: false,
  writeModes: WRITE_MODES,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Redis",
    type: "object",
    required: ["url", "mode", "key_template"],
    properties: {
      ...brokerConnectionFields("redis://redis.example.com:6379/0", ["redis", "rediss"]),
      mode: {
        type: "string",
        title: "Write as",
        description:
          "stream: XADD one entry per record to a stream; hash: HSET the record's fields into a hash per key (a deleted record deletes its hash).",
        enum: ["stream", "hash"],
        default: "stream",
        order: 3,
      },
      key_template: nameTemplateField(
        "Key template",
        "Liquid template of the stream key or hash key over the record's fields, e.g. orders or customer:{{ id }}.",
        4,
      ),
      stream_max_length: {
        type: "integer",
        title: "Stream max length",
        description:
          "Stream mode: trim the stream to about this many entries (XADD MAXLEN ~); 0 keeps every entry.",
        minimum: 0,
        default: 0,
        order: 5,
      },
      ...BROKER_SENDING_FIELDS,
    },
  },
};
