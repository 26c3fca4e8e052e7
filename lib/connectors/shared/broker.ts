// What the event-stream destinations (Redis, RabbitMQ, NATS JetStream, MQTT) share: the broker URL
// and its net-policy guard, the message built from a record (JSON body, names from Liquid
// templates), per-record outcomes from the broker's acknowledgement, the connection cache and the
// one-stream catalog. Each connector keeps only what its protocol does differently.
import { isIP, Socket, type LookupFunction } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Duplex } from "node:stream";
import type { Catalog, ConnectorDefinition, LogPart, Row, WriteOutcome, WriteRecord } from "../types";
import { assertHostAllowed, connectGuarded, guardedLookup } from "@/lib/net/policy";
import { mapLimit, withTimeout } from "./batching";
import { buildCatalog } from "./catalog";
import { numberField, optionalString, secondsToMs, stringField } from "./config";
import { ConnectorError, errorMessage } from "./errors";
import { renderTemplate } from "./liquid";
import { exactJson, scalarText } from "./values";
import { redact, secretValues } from "./secrets";

/** Where a broker is: parsed from the configuration's `url` (never with a password in it). */
export interface BrokerTarget {
  url: URL;
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  timeoutMs: number;
}

/** `url`'s schemes: plain ones and TLS ones, and the port each family uses when the URL names none. */
export interface BrokerSchemes {
  plain: string;
  tls: string;
  port: number;
  tlsPort: number;
}

/** The broker target of a configuration; throws ConnectorError for a URL it cannot use. */
export function brokerTarget(config: Row, schemes: BrokerSchemes): BrokerTarget {
  const raw = stringField(config, "url");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConnectorError(
      `"url" is not a valid URL; expected e.g. ${schemes.plain}://broker.example.com:${schemes.port}.`,
    );
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== schemes.plain && scheme !== schemes.tls) {
    throw new ConnectorError(
      `"url" must start with ${schemes.plain}:// or ${schemes.tls}://, not ${scheme}://.`,
    );
  }
  // A password inside the URL would be stored and shown in the clear: it has a field of its own.
  if (url.password) throw new ConnectorError(`Put the password in the "password" field, not in "url".`);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!host) throw new ConnectorError(`"url" names no host.`);
  const tls = scheme === schemes.tls;
  return {
    url,
    host,
    port: url.port ? Number(url.port) : tls ? schemes.tlsPort : schemes.port,
    tls,
    username:
      optionalString(config, "username") ?? (url.username ? decodeURIComponent(url.username) : undefined),
    password: optionalString(config, "password"),
    timeoutMs: secondsToMs(config, "timeout", 10),
  };
}

/** `url` as shown in logs and check sentences: scheme, host and port (the path, e.g. a vhost, too). */
export function describeTarget(t: BrokerTarget): string {
  return `${t.url.protocol}//${t.url.host}${t.url.pathname === "/" ? "" : t.url.pathname}`;
}

/**
 * Socket options for clients that hand them to net/tls.connect (amqplib, node-redis): names are
 * resolved and checked by the policy's lookup, IP literals (which skip any lookup) are checked here.
 */
export async function guardedSocketOptions(t: BrokerTarget): Promise<{ lookup: LookupFunction }> {
  await assertHostAllowed(t.host);
  return { lookup: guardedLookup() };
}

/** One allowed address of the host, for clients that connect to what they are given (NATS). */
export function allowedAddress(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    guardedLookup()(host, { all: false }, (err, address) => (err ? reject(err) : resolve(String(address))));
  });
}

/** The TLS server name to send and verify: the host, unless it is an address (SNI takes names only). */
export function serverName(t: BrokerTarget): string | undefined {
  return isIP(t.host) ? undefined : t.host;
}

/** A connected stream through the policy (connectGuarded), wrapped in TLS for TLS schemes (MQTT). */
export function guardedStream(t: BrokerTarget): Duplex {
  const socket = connectGuarded(new Socket(), { host: t.host, port: t.port });
  if (!t.tls) return socket;
  return tlsConnect({ socket, servername: serverName(t), rejectUnauthorized: true });
}

/**
 * A broker name (stream key, routing key, subject, topic) rendered from a Liquid template over the
 * record's payload (its fields, and `payload` the whole of it). Throws ConnectorError when it renders
 * empty or `invalid` says why it cannot be used.
 */
export function renderName(
  template: string,
  payload: Row,
  what: string,
  invalid?: (name: string) => string | undefined,
): string {
  const isTemplate = template.includes("{{") || template.includes("{%");
  const name = isTemplate ? renderTemplate(template, { ...payload, payload }).trim() : template;
  if (name === "") throw new ConnectorError(`The ${what} template gave an empty ${what}.`);
  const reason = invalid?.(name);
  // JSON-quoted: a line feed or other control character shows as an escape, not as a broken line.
  if (reason) throw new ConnectorError(`The ${what} ${JSON.stringify(name.slice(0, 200))} cannot be used: ${reason}.`);
  return name;
}

/** The message body: the mapped record as JSON, each value exact (values.ts). */
export function messageBody(payload: Row): string {
  return exactJson(payload);
}

/**
 * The payload's top-level fields as strings (Redis stream entries and hashes): text as is, numbers
 * as their digits, the rest as exact JSON (values.ts scalarText). A NULL has no text: its field is
 * left out and named in `nulls` (a hash removes it), so the text "null" always means the text.
 */
export function messageFields(payload: Row): { fields: Record<string, string>; nulls: string[] } {
  const fields: Record<string, string> = {};
  const nulls: string[] = [];
  for (const [k, v] of Object.entries(payload)) {
    if (v === undefined) continue;
    if (v === null) nulls.push(k);
    else fields[k] = scalarText(v);
  }
  return { fields, nulls };
}

/**
 * The message id a broker de-duplicates by: the engine's idempotency key (the same for every attempt
 * to deliver this version of the record), else the record's key.
 */
export function messageId(record: WriteRecord): string {
  return record.idempotencyKey ?? `record-${record.key}`;
}

/** The broker did not acknowledge in time. Retryable: the message may or may not have arrived. */
export class AckTimeoutError extends ConnectorError {
  constructor(what: string, ms: number) {
    super(`The broker did not acknowledge the ${what} within ${Math.round(ms / 100) / 10} s.`, "ack_timeout");
    this.name = "AckTimeoutError";
  }
}

const TRANSIENT_CODES = new Set([
  ...["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"],
  ...["ack_timeout", "connection_lost", "nack", "transient"],
  // nats.js
  ...["CONNECTION_CLOSED", "CONNECTION_REFUSED", "CONNECTION_TIMEOUT", "DISCONNECT", "TIMEOUT", "408"],
]);

/** An error worth another attempt (the broker is busy, the connection went away). */
export function transientError(message: string): ConnectorError {
  return new ConnectorError(message, "transient");
}

/** Connection trouble and missing acknowledgements are worth another attempt; refusals are not. */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && TRANSIENT_CODES.has(code);
}

/** What was sent for a record, as its log shows it. */
export interface SentMessage {
  /** e.g. `XADD orders`, `PUBLISH amq.topic orders.created`. */
  line: string;
  body: unknown;
}

/** A record the broker acknowledged; `reply` is what it answered (`1700000000000-0`, `seq 12`). */
export function acknowledged(record: WriteRecord, sent: SentMessage, reply: string): WriteOutcome {
  return { key: record.key, ok: true, log: { request: sent, response: { line: reply }, level: "info" } };
}

/** A record that failed: retryable (status 0) when `err` is transient, else a refusal. */
export function failed(
  record: WriteRecord,
  err: unknown,
  secrets: string[],
  sent?: SentMessage,
): WriteOutcome {
  const error = redact(errorMessage(err), secrets);
  const retryable = isTransient(err);
  const request: LogPart = sent ?? { line: "(not sent)" };
  return {
    key: record.key,
    ok: false,
    error,
    status: retryable ? 0 : 422,
    retryable,
    log: { request, response: { line: error }, level: "error" },
  };
}

/**
 * Sends every record with at most `inFlight` awaiting acknowledgement, each bounded by the timeout:
 * one outcome per record, from its own acknowledgement. `send` throws for a refusal; what it returns
 * is the broker's reply for the log. A connection that cannot be opened fails the batch, retryable.
 */
/** How sendEach sends: the connector, its configuration, the ack timeout, concurrency, the log's word for one send. */
export interface SendOptions {
  definition: ConnectorDefinition;
  config: Row;
  timeoutMs: number;
  inFlight?: number;
  what: string;
}

export async function sendEach(
  records: WriteRecord[],
  options: SendOptions,
  send: (record: WriteRecord, sent: (message: SentMessage) => void) => Promise<string>,
): Promise<WriteOutcome[]> {
  const secrets = secretValues(options.config, options.definition);
  return mapLimit(records, options.inFlight ?? 64, async (record) => {
    let message: SentMessage | undefined;
    try {
      const reply = await withTimeout(
        send(record, (m) => {
          message = m;
        }),
        options.timeoutMs,
        () => new AckTimeoutError(options.what, options.timeoutMs),
      );
      return acknowledged(record, message ?? { line: options.what, body: record.payload }, reply);
    } catch (err) {
      return failed(record, err, secrets, message);
    }
  });
}

/** An open connection the cache can test and end. */
export interface BrokerConnection {
  /** False once the broker or the network closed it: the next write opens another. */
  alive(): boolean;
  end(): Promise<void>;
}

/**
 * One connection per distinct configuration, kept between the batches of a run and ended by the
 * connector's close(config); a dead one is replaced on the next use.
 */
export class ConnectionCache<C extends BrokerConnection> {
  private readonly entries = new Map<string, Promise<C>>();

  async get(config: Row, open: () => Promise<C>): Promise<C> {
    const key = JSON.stringify(config);
    const existing = this.entries.get(key);
    if (existing) {
      const connection = await existing.catch(() => undefined);
      if (connection?.alive()) return connection;
      if (this.entries.get(key) === existing) this.entries.delete(key);
      // Not awaited: a dead connection's end may wait for answers that never come (mqtt.js did).
      void connection?.end().catch(() => undefined);
    }
    const opening = open();
    this.entries.set(key, opening);
    opening.catch(() => {
      if (this.entries.get(key) === opening) this.entries.delete(key);
    });
    return opening;
  }

  /**
   * A connector's write: each record sent over this configuration's connection (sendEach); when none
   * can be opened, every record fails with the reason (retryable when transient).
   */
  async sendAll(
    records: WriteRecord[],
    options: Omit<SendOptions, "inFlight"> & { open: () => Promise<C>; inFlight?: (connection: C) => number },
    send: (connection: C, record: WriteRecord, sent: (message: SentMessage) => void) => Promise<string>,
  ): Promise<WriteOutcome[]> {
    if (records.length === 0) return [];
    const { open, inFlight, ...rest } = options;
    let connection: C;
    try {
      connection = await this.get(options.config, open);
    } catch (err) {
      return connectionFailed(records, err, secretValues(options.config, options.definition));
    }
    return sendEach(records, { ...rest, inFlight: inFlight?.(connection) }, (record, sent) =>
      send(connection, record, sent),
    );
  }

  async close(config: Row): Promise<void> {
    const key = JSON.stringify(config);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    const connection = await entry?.catch(() => undefined);
    if (connection) await endWithin(connection, END_WAIT_MS);
  }
}

/** How long close(config) waits for a connection to end cleanly before leaving it to its client. */
const END_WAIT_MS = 5000;

/** Ends `connection`, waiting at most `ms` for it (its client finishes in the background). */
async function endWithin(connection: BrokerConnection, ms: number): Promise<void> {
  await withTimeout(connection.end(), ms, () => new Error("ending the connection took too long")).catch(() => undefined);
}

/** Opening a connection failed: every record of the batch fails with the reason, retryable when transient. */
export function connectionFailed(records: WriteRecord[], err: unknown, secrets: string[]): WriteOutcome[] {
  return records.map((r) => failed(r, err, secrets));
}

/**
 * The one stream a broker destination offers: schemaless (the mapping names the message's fields),
 * batches of `batch_size`, or with a rate limit (messages per second) one message per request.
 */
export function brokerCatalog(config: Row, stream: { name: string; url: string }): Catalog {
  const perSecond = numberField(config, "rate_limit_per_second", 0);
  return buildCatalog(
    [
      {
        name: stream.name,
        action: "create",
        url: stream.url,
        json_schema: { type: "object", additionalProperties: true },
        // The engine's rate budget counts requests: under a limit each message is a request of its own.
        batch_support: perSecond === 0,
        batch_size: perSecond === 0 ? numberField(config, "batch_size", 500) : 1,
        request_method: "POST",
        ...(perSecond > 0
          ? { request_rate_limit: perSecond, request_rate_limit_unit: "second" as const }
          : {}),
      },
    ],
    {
      request_rate_limit: perSecond,
      request_rate_limit_unit: "second",
      request_rate_concurrency: 4,
      schema_mode: "schemaless",
    },
  );
}
