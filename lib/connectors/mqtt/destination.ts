// MQTT destination (MQTT 5): each record is one QoS 1 JSON message to a topic rendered from a
// template, optionally retained. A record succeeds when the broker's PUBACK accepts it (reason code
// below 0x80; 0x10 "no matching subscribers" is a success); a refusing PUBACK (e.g. 0x87 not
// authorized), a lost connection or no PUBACK in time fails that record alone.
import { randomBytes } from "node:crypto";
import type { MqttClient } from "mqtt";
import { lazyModule } from "../shared/lazy-module";

const mqttLib = lazyModule(() => import("mqtt"));
import type { CheckResult, DestinationConnector, Row, WriteOutcome, WriteRecord } from "../types";
import {
  brokerCatalog,
  brokerTarget,
  ConnectionCache,
  describeTarget,
  guardedStream,
  messageBody,
  messageId,
  renderName,
  type BrokerConnection,
  type BrokerTarget,
  type SentMessage,
} from "../shared/broker";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError, safeCheck } from "../shared/errors";
import { withTimeout } from "../shared/batching";
import { mqttDestinationDefinition } from "./definition";
import { invalidTopic } from "./topic";

const SCHEMES = { plain: "mqtt", tls: "mqtts", port: 1883, tlsPort: 8883 };

interface MqttSettings {
  target: BrokerTarget;
  clientId?: string;
  topicTemplate: string;
  retain: boolean;
}

function settings(config: Row): MqttSettings {
  return {
    target: brokerTarget(config, SCHEMES),
    clientId: optionalString(config, "client_id"),
    topicTemplate: stringField(config, "topic_template"),
    retain: config.retain === true,
  };
}

interface MqttConnection extends BrokerConnection {
  client: MqttClient;
  /** `publishing`, or a connection_lost failure as soon as the connection closes. */
  untilClosed<T>(publishing: Promise<T>): Promise<T>;
  /** Unacknowledged QoS 1 messages the broker takes at once (its Receive Maximum). */
  receiveMaximum: number;
}

async function open(s: MqttSettings): Promise<MqttConnection> {
  const t = s.target;
  // The client's stream comes from the policy's guarded connect (TLS on top for mqtts).
  let streamError: Error | undefined;
  const { MqttClient } = await mqttLib.load();
  const client = new MqttClient(
    () => {
      const stream = guardedStream(t);
      stream.once("error", (err) => {
        streamError = err;
      });
      return stream;
    },
    {
      protocolVersion: 5,
      clientId: s.clientId ?? `datasync-${randomBytes(6).toString("hex")}`,
      username: t.username,
      password: t.password,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: t.timeoutMs,
      keepalive: 30,
    },
  );
  let receiveMaximum = 20;
  try {
    await new Promise<void>((resolve, reject) => {
      client.once("connect", (connack) => {
        receiveMaximum = connack.properties?.receiveMaximum ?? 65535;
        resolve();
      });
      client.once("error", reject);
      client.once("close", () =>
        reject(
          streamError ??
            Object.assign(new ConnectorError("The broker closed the connection before accepting it."), {
              code: "ECONNRESET",
            }),
        ),
      );
    });
  } catch (err) {
    client.end(true);
    throw err;
  }
  client.removeAllListeners("error");
  client.on("error", () => undefined);
  // With reconnectPeriod 0, mqtt.js keeps the QoS 1 publishes of a closed connection for a reconnect
  // that never comes, and never answers them: they fail here when it closes, each on its own.
  const pending = new Set<(err: Error) => void>();
  client.on("close", () => {
    const lost = Object.assign(new ConnectorError("The broker closed the connection before acknowledging the message."), {
      code: "connection_lost",
    });
    for (const reject of pending) reject(lost);
    pending.clear();
  });
  return {
    client,
    receiveMaximum,
    alive: () => client.connected,
    untilClosed: <T>(publishing: Promise<T>) => {
      let reject: (err: Error) => void = () => undefined;
      const closed = new Promise<never>((_, r) => pending.add((reject = r)));
      return Promise.race([publishing, closed]).finally(() => pending.delete(reject));
    },
    end: () => endClient(client),
  };
}

/**
 * A clean DISCONNECT, bounded: mqtt.js's end() waits for every PUBACK still owed, which a broker that
 * dropped the connection never sends; then (or when already closed) the socket is destroyed.
 */
async function endClient(client: MqttClient): Promise<void> {
  if (!client.connected) {
    client.end(true);
    return;
  }
  await withTimeout(client.endAsync(), END_WAIT_MS, () => new Error("DISCONNECT took too long")).catch(() => client.end(true));
}

const END_WAIT_MS = 2000;

const connections = new ConnectionCache<MqttConnection>();

async function publish(
  s: MqttSettings,
  c: MqttConnection,
  record: WriteRecord,
  sent: (m: SentMessage) => void,
): Promise<string> {
  const topic = renderName(s.topicTemplate, record.payload, "topic", invalidTopic);
  sent({ line: `PUBLISH ${topic} (QoS 1${s.retain ? ", retained" : ""})`, body: record.payload });
  try {
    // A closed connection would queue the message for a reconnect that never comes.
    if (!c.client.connected) throw new Error("the connection to the broker is closed");
    const puback = await c.untilClosed(
      c.client.publishAsync(topic, messageBody(record.payload), {
        qos: 1,
        retain: s.retain,
        properties: {
          contentType: "application/json",
          userProperties: { action: record.action, message_id: messageId(record) },
        },
      }),
    );
    return `PUBACK (reason code ${puback && "reasonCode" in puback ? (puback.reasonCode ?? 0) : 0})`;
  } catch (err) {
    // A PUBACK that refuses carries a reason code; anything else is the connection's trouble.
    const reasonCode = (err as { code?: unknown }).code;
    if (typeof reasonCode === "number")
      throw new ConnectorError(
        `The broker refused the message: ${(err as Error).message} (reason code 0x${reasonCode.toString(16)}).`,
      );
    throw Object.assign(new ConnectorError(`The message was not acknowledged: ${(err as Error).message}`), {
      code: "connection_lost",
    });
  }
}

async function write(config: Row, records: WriteRecord[]): Promise<WriteOutcome[]> {
  const s = settings(config);
  return connections.sendAll(
    records,
    {
      definition: mqttDestinationDefinition,
      config,
      open: () => open(s),
      timeoutMs: s.target.timeoutMs,
      what: "message",
      // No more unacknowledged QoS 1 publishes than the broker's Receive Maximum allows.
      inFlight: (connection) => Math.max(1, Math.min(64, connection.receiveMaximum)),
    },
    (connection, record, sent) => publish(s, connection, record, sent),
  );
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(mqttDestinationDefinition, config, async () => {
    const s = settings(config);
    const c = await open(s);
    try {
      // A PINGREQ/PINGRESP round trip would do too; the CONNACK already proves the credentials.
      return {
        ok: true,
        details: `Connected to the MQTT broker at ${describeTarget(s.target)} (MQTT 5, CONNACK accepted).`,
      };
    } finally {
      await c.end().catch(() => undefined);
    }
  });
}

export const mqttDestination: DestinationConnector = {
  definition: mqttDestinationDefinition,
  check,
  discover: async (config) => {
    const s = settings(config);
    return brokerCatalog(config, { name: "messages", url: `${describeTarget(s.target)} ${s.topicTemplate}` });
  },
  write,
  close: (config) => connections.close(config),
};
