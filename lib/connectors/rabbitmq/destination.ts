// RabbitMQ destination (AMQP 0-9-1): each record is one persistent JSON message on a confirm channel,
// to an exchange and routing key rendered from templates. A record succeeds when the broker confirms
// it (basic.ack) and, with `mandatory`, did not return it as unroutable first (basic.return comes
// before the ack); a nack, a return, a closed channel or no confirm in time fails that record alone.
import type { ChannelModel, ConfirmChannel } from "amqplib";
import { lazyModule } from "../shared/lazy-module";

const amqpLib = lazyModule(() => import("amqplib"));
import type { CheckResult, DestinationConnector, Row, WriteOutcome, WriteRecord } from "../types";
import {
  brokerCatalog,
  brokerTarget,
  ConnectionCache,
  describeTarget,
  guardedSocketOptions,
  messageBody,
  messageId,
  renderName,
  type BrokerConnection,
  type BrokerTarget,
  type SentMessage,
} from "../shared/broker";
import { stringField } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { rabbitmqDestinationDefinition } from "./definition";

const SCHEMES = { plain: "amqp", tls: "amqps", port: 5672, tlsPort: 5671 };

interface RabbitSettings {
  target: BrokerTarget;
  vhost: string;
  exchangeTemplate: string;
  routingKeyTemplate: string;
  mandatory: boolean;
  persistent: boolean;
}

function settings(config: Row): RabbitSettings {
  const target = brokerTarget(config, SCHEMES);
  const path = target.url.pathname;
  return {
    target,
    vhost: path === "" || path === "/" ? "/" : decodeURIComponent(path.slice(1)),
    exchangeTemplate: stringField(config, "exchange_template", ""),
    routingKeyTemplate: stringField(config, "routing_key_template"),
    mandatory: config.mandatory !== false,
    persistent: config.persistent !== false,
  };
}

interface RabbitConnection extends BrokerConnection {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** Message ids the broker returned as unroutable, until their confirm arrives. */
  returned: Map<string, string>;
  /** Exchanges known to exist (checked once per connection). */
  exchanges: Set<string>;
}

class ConnectionLost extends ConnectorError {
  constructor(message: string) {
    super(message, "connection_lost");
  }
}

async function open(s: RabbitSettings): Promise<RabbitConnection> {
  const t = s.target;
  const guard = await guardedSocketOptions(t);
  const { connect } = await amqpLib.load();
  const model = await connect(
    {
      protocol: t.tls ? "amqps" : "amqp",
      hostname: t.host,
      port: t.port,
      username: t.username ?? "guest",
      password: t.password ?? "guest",
      vhost: s.vhost,
      heartbeat: 30,
    },
    // amqplib sends and verifies the host name for amqps itself (for names, not addresses).
    { ...guard, timeout: t.timeoutMs },
  );
  let open = true;
  model.on("error", () => undefined);
  model.on("close", () => {
    open = false;
  });
  const channel = await model.createConfirmChannel().catch(async (err: unknown) => {
    await model.close().catch(() => undefined);
    throw err;
  });
  let channelOpen = true;
  const returned = new Map<string, string>();
  channel.on("error", () => undefined);
  channel.on("close", () => {
    channelOpen = false;
  });
  channel.on(
    "return",
    (message: { fields: { replyCode: number; replyText: string }; properties: { messageId?: string } }) => {
      if (message.properties.messageId)
        returned.set(message.properties.messageId, `${message.fields.replyCode} ${message.fields.replyText}`);
    },
  );
  return {
    model,
    channel,
    returned,
    exchanges: new Set([""]),
    alive: () => open && channelOpen,
    end: () => model.close().catch(() => undefined),
  };
}

const connections = new ConnectionCache<RabbitConnection>();

const EXCHANGE_NAME = /^[A-Za-z0-9_.:-]+$/;
const shortString = (what: string) => (name: string) =>
  Buffer.byteLength(name) > 255 ? `a ${what} is at most 255 bytes` : undefined;
const invalidExchange = (name: string) =>
  shortString("name")(name) ??
  (EXCHANGE_NAME.test(name) ? undefined : "exchange names use letters, digits, -, _, . and : only");

/**
 * Whether the exchange exists, asked on a channel of its own: a passive declare of a missing exchange
 * closes its channel, which must not be the one carrying the batch's other messages.
 */
async function ensureExchange(c: RabbitConnection, name: string): Promise<void> {
  if (c.exchanges.has(name)) return;
  const probe = await c.model.createChannel();
  probe.on("error", () => undefined);
  try {
    await probe.checkExchange(name);
    c.exchanges.add(name);
  } catch (err) {
    throw new ConnectorError(
      `The exchange "${name}" does not exist in this virtual host (${errorMessage(err).replace(/^.*?NOT_FOUND - /, "")}).`,
    );
  } finally {
    await probe.close().catch(() => undefined);
  }
}

function publish(
  s: RabbitSettings,
  c: RabbitConnection,
  record: WriteRecord,
  sent: (m: SentMessage) => void,
): Promise<string> {
  const exchange =
    s.exchangeTemplate === ""
      ? ""
      : renderName(s.exchangeTemplate, record.payload, "exchange", invalidExchange);
  const routingKey = renderName(
    s.routingKeyTemplate,
    record.payload,
    "routing key",
    shortString("routing key"),
  );
  const id = messageId(record);
  return ensureExchange(c, exchange).then(
    () =>
      new Promise<string>((resolve, reject) => {
        sent({
          line: `PUBLISH ${exchange === "" ? "(default exchange)" : exchange} ${routingKey}`,
          body: record.payload,
        });
        const callback = (err: unknown) => {
          const returnedAs = c.returned.get(id);
          c.returned.delete(id);
          if (err) {
            const closed = !c.alive() || /closed/i.test(errorMessage(err));
            reject(
              closed
                ? new ConnectionLost(
                    `The channel closed before the broker confirmed the message: ${errorMessage(err)}`,
                  )
                : new ConnectorError(
                    "The broker could not take the message (basic.nack); it may be sent again.",
                    "nack",
                  ),
            );
          } else if (returnedAs)
            reject(
              new ConnectorError(
                `No queue took the message: the broker returned it as unroutable (${returnedAs}).`,
              ),
            );
          else resolve(`confirmed (basic.ack)`);
        };
        try {
          c.channel.publish(
            exchange,
            routingKey,
            Buffer.from(messageBody(record.payload)),
            {
              persistent: s.persistent,
              mandatory: s.mandatory,
              contentType: "application/json",
              messageId: id,
              type: record.action,
              timestamp: Math.floor(Date.now() / 1000),
              headers: { "x-datasync-action": record.action },
            },
            callback,
          );
        } catch (err) {
          reject(new ConnectionLost(errorMessage(err)));
        }
      }),
  );
}

async function write(config: Row, records: WriteRecord[]): Promise<WriteOutcome[]> {
  const s = settings(config);
  return connections.sendAll(
    records,
    {
      definition: rabbitmqDestinationDefinition,
      config,
      open: () => open(s),
      timeoutMs: s.target.timeoutMs,
      what: "message",
      inFlight: () => 256,
    },
    (connection, record, sent) => publish(s, connection, record, sent),
  );
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(rabbitmqDestinationDefinition, config, async () => {
    const s = settings(config);
    const connection = await open(s);
    try {
      // A static exchange is checked now; a templated one can only be known per record.
      const staticExchange = s.exchangeTemplate !== "" && !s.exchangeTemplate.includes("{");
      if (staticExchange) await ensureExchange(connection, s.exchangeTemplate);
      const props = connection.model.connection.serverProperties;
      return {
        ok: true,
        details: `Connected to ${props.product ?? "RabbitMQ"} ${props.version ?? ""} at ${describeTarget(s.target)}, virtual host "${s.vhost}"${staticExchange ? `; exchange "${s.exchangeTemplate}" exists` : ""}.`,
      };
    } finally {
      await connection.end();
    }
  });
}

export const rabbitmqDestination: DestinationConnector = {
  definition: rabbitmqDestinationDefinition,
  check,
  discover: async (config) => {
    const s = settings(config);
    return brokerCatalog(config, {
      name: "messages",
      url: `${describeTarget(s.target)} ${s.exchangeTemplate || "(default exchange)"} ${s.routingKeyTemplate}`,
    });
  },
  write,
  close: (config) => connections.close(config),
};
