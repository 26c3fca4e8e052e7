// NATS JetStream destination: each record is one JSON message published to a subject rendered from
// a template, with a Nats-Msg-Id built from the record (its idempotency key), so JetStream stores a
// retried message once within the stream's duplicate window. A record succeeds when a stream acks
// it (PubAck: stream and sequence); no stream for the subject (503), an error ack or no ack in time
// fails that record alone.
import type { JetStreamClient, NatsConnection, TlsOptions } from "nats";
import { lazyModule } from "../shared/lazy-module";

const natsLib = lazyModule(() => import("nats"));
import { isIP } from "node:net";
import type { CheckResult, DestinationConnector, Row, WriteOutcome, WriteRecord } from "../types";
import {
  allowedAddress,
  brokerCatalog,
  brokerTarget,
  ConnectionCache,
  describeTarget,
  messageBody,
  messageId,
  renderName,
  type BrokerConnection,
  type BrokerTarget,
  type SentMessage,
} from "../shared/broker";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { natsDestinationDefinition } from "./definition";

const SCHEMES = { plain: "nats", tls: "tls", port: 4222, tlsPort: 4222 };

interface NatsSettings {
  target: BrokerTarget;
  token?: string;
  subjectTemplate: string;
  expectedStream?: string;
}

function settings(config: Row): NatsSettings {
  return {
    target: brokerTarget(config, SCHEMES),
    token: optionalString(config, "token"),
    subjectTemplate: stringField(config, "subject_template"),
    expectedStream: optionalString(config, "expected_stream"),
  };
}

interface NatsOpen extends BrokerConnection {
  nc: NatsConnection;
  js: JetStreamClient;
}

async function open(s: NatsSettings): Promise<NatsOpen> {
  const t = s.target;
  // nats.js connects to what it is given (no lookup hook): it gets an address the policy allowed,
  // never learns other servers from the cluster, and TLS still verifies the configured host name.
  const address = await allowedAddress(t.host);
  // nats.js hands its tls options to tls.connect, where servername names the host to verify.
  const tls: TlsOptions & { servername: string } = { servername: t.host };
  const { connect } = await natsLib.load();
  const nc = await connect({
    servers: `${isIP(address) === 6 ? `[${address}]` : address}:${t.port}`,
    user: t.username,
    pass: t.password,
    token: s.token,
    timeout: t.timeoutMs,
    reconnect: false,
    ignoreClusterUpdates: true,
    name: "datasync",
    ...(t.tls ? { tls } : {}),
  });
  return {
    nc,
    js: nc.jetstream({ timeout: t.timeoutMs }),
    alive: () => !nc.isClosed(),
    end: () => nc.close(),
  };
}

const connections = new ConnectionCache<NatsOpen>();

/** Subjects: dot-separated tokens, none empty, no wildcards or white space. */
function invalidSubject(subject: string): string | undefined {
  if (/\s/.test(subject)) return "subjects contain no white space";
  const tokens = subject.split(".");
  if (tokens.some((t) => t === ""))
    return "subjects have no empty tokens (a leading, trailing or double dot)";
  if (tokens.some((t) => t === "*" || t === ">")) return "a published subject has no wildcards";
  return Buffer.byteLength(subject) > 1024 ? "subjects are at most 1024 bytes" : undefined;
}

/** nats.js answers a subject no stream captures with a bare "503". */
function describeFailure(err: unknown, subject: string): unknown {
  const code = (err as { code?: unknown })?.code;
  if (code === "503")
    return new ConnectorError(
      `No JetStream stream captures the subject "${subject}" (no responders).`,
      "no_stream",
    );
  return err;
}

async function publish(
  s: NatsSettings,
  c: NatsOpen,
  record: WriteRecord,
  sent: (m: SentMessage) => void,
): Promise<string> {
  const subject = renderName(s.subjectTemplate, record.payload, "subject", invalidSubject);
  const h = (await natsLib.load()).headers();
  h.set("Content-Type", "application/json");
  h.set("Datasync-Action", record.action);
  const id = messageId(record);
  sent({ line: `PUBLISH ${subject} (Nats-Msg-Id ${id})`, body: record.payload });
  try {
    const ack = await c.js.publish(subject, new TextEncoder().encode(messageBody(record.payload)), {
      msgID: id,
      headers: h,
      timeout: s.target.timeoutMs,
      ...(s.expectedStream ? { expect: { streamName: s.expectedStream } } : {}),
    });
    return `stored in stream ${ack.stream} at sequence ${ack.seq}${ack.duplicate ? " (a duplicate: already stored)" : ""}`;
  } catch (err) {
    throw describeFailure(err, subject);
  }
}

async function write(config: Row, records: WriteRecord[]): Promise<WriteOutcome[]> {
  const s = settings(config);
  return connections.sendAll(
    records,
    {
      definition: natsDestinationDefinition,
      config,
      open: () => open(s),
      timeoutMs: s.target.timeoutMs + 1000,
      what: "message",
      inFlight: () => 256,
    },
    (connection, record, sent) => publish(s, connection, record, sent),
  );
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(natsDestinationDefinition, config, async () => {
    const s = settings(config);
    const c = await open(s);
    try {
      await c.nc.flush();
      let streams: number;
      try {
        const jsm = await c.nc.jetstreamManager({ timeout: s.target.timeoutMs });
        streams = (await jsm.getAccountInfo()).streams;
        // A fixed subject can be checked now: some stream must capture it.
        if (!/[{%]/.test(s.subjectTemplate)) {
          const stream = await jsm.streams.find(s.subjectTemplate).catch(() => undefined);
          if (!stream)
            return {
              ok: false,
              details: `Connected, but no JetStream stream captures the subject "${s.subjectTemplate}".`,
            };
        }
      } catch (err) {
        return {
          ok: false,
          details: `Connected to NATS, but JetStream did not answer: ${errorMessage(err)}.`,
        };
      }
      return {
        ok: true,
        details: `Connected to NATS ${c.nc.info?.version ?? ""} at ${describeTarget(s.target)}; JetStream has ${streams} stream(s).`,
      };
    } finally {
      await c.end().catch(() => undefined);
    }
  });
}

export const natsDestination: DestinationConnector = {
  definition: natsDestinationDefinition,
  check,
  discover: async (config) => {
    const s = settings(config);
    return brokerCatalog(config, {
      name: "messages",
      url: `${describeTarget(s.target)} ${s.subjectTemplate}`,
    });
  },
  write,
  close: (config) => connections.close(config),
};
