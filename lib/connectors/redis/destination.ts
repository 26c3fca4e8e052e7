// Redis destination: each record is one XADD to a stream (mode `stream`) or one HSET of its fields
// into a hash (mode `hash`; a deleted record DELs its hash), the key rendered from a template. The
// commands of a batch are pipelined on one connection; each record's outcome is its own reply.
import { lazyModule } from "../shared/lazy-module";
import type { CheckResult, DestinationConnector, Row, WriteOutcome, WriteRecord } from "../types";
import {
  brokerCatalog,
  brokerTarget,
  ConnectionCache,
  describeTarget,
  guardedSocketOptions,
  messageFields,
  renderName,
  serverName,
  transientError,
  type BrokerConnection,
  type BrokerTarget,
} from "../shared/broker";
import { numberField, stringField } from "../shared/config";
import { ConnectorError, safeCheck } from "../shared/errors";
import { redisDestinationDefinition } from "./definition";

const SCHEMES = { plain: "redis", tls: "rediss", port: 6379, tlsPort: 6379 };

interface RedisSettings {
  target: BrokerTarget;
  database: number;
  mode: "stream" | "hash";
  keyTemplate: string;
  maxLength: number;
}

function settings(config: Row): RedisSettings {
  const target = brokerTarget(config, SCHEMES);
  const path = target.url.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d+$/.test(path))
    throw new ConnectorError(`The URL's path must be a database number (e.g. /0), not "/${path}".`);
  return {
    target,
    database: path === "" ? 0 : Number(path),
    mode: stringField(config, "mode", "stream") === "hash" ? "hash" : "stream",
    keyTemplate: stringField(config, "key_template"),
    maxLength: numberField(config, "stream_max_length", 0),
  };
}

/** A client of the settings' server, its socket through the net policy's lookup. */
const redisLib = lazyModule(() => import("@redis/client"));

async function redisClient(s: RedisSettings, guard: Awaited<ReturnType<typeof guardedSocketOptions>>) {
  const t = s.target;
  const { createClient } = await redisLib.load();
  return createClient({
    socket: {
      host: t.host,
      port: t.port,
      connectTimeout: t.timeoutMs,
      // A lost connection fails the commands in flight (retried by the engine) instead of queueing them.
      reconnectStrategy: false,
      ...guard,
      ...(t.tls ? { tls: true as const, servername: serverName(t) } : {}),
    },
    username: t.username,
    password: t.password,
    database: s.database,
    disableOfflineQueue: true,
    // Shown by CLIENT LIST, so an operator can tell these connections apart.
    name: "datasync",
  });
}

type Client = Awaited<ReturnType<typeof redisClient>>;

interface RedisConnection extends BrokerConnection {
  client: Client;
}

async function open(s: RedisSettings): Promise<RedisConnection> {
  const client = await redisClient(s, await guardedSocketOptions(s.target));
  // Errors reach the commands that suffer them; without a listener node-redis would throw them.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    client.destroy();
    throw err;
  }
  return {
    client,
    alive: () => client.isReady,
    end: async () => {
      if (client.isOpen) await client.close();
    },
  };
}

const connections = new ConnectionCache<RedisConnection>();

/** Keys may hold any bytes; a newline in one is almost always a template mistake. */
const invalidKey = (key: string) =>
  /[\r\n]/.test(key)
    ? "it contains a line break"
    : key.length > 1024
      ? "it is longer than 1024 characters"
      : undefined;

async function sendOne(
  s: RedisSettings,
  client: Client,
  record: WriteRecord,
  sent: (m: { line: string; body: unknown }) => void,
): Promise<string> {
  const key = renderName(s.keyTemplate, record.payload, "key", invalidKey);
  const { fields, nulls } = messageFields(record.payload);
  if (s.mode === "hash") {
    if (record.action === "delete") {
      sent({ line: `DEL ${key}`, body: null });
      return `DEL: ${await client.del(key)} key removed`;
    }
    const written = Object.keys(fields).length > 0;
    if (!written && nulls.length === 0)
      throw new ConnectorError("The record has no fields to write into the hash.");
    // A NULL field is no field: HDEL, so a value written before does not outlive its NULL.
    sent({ line: [written ? `HSET ${key}` : "", nulls.length > 0 ? `HDEL ${key} ${nulls.join(" ")}` : ""].filter(Boolean).join("; "), body: fields });
    if (nulls.length === 0) return `HSET: ${await client.hSet(key, fields)} new fields`;
    const multi = client.multi();
    if (written) multi.hSet(key, fields);
    multi.hDel(key, nulls);
    const replies = await multi.exec();
    return written ? `HSET: ${String(replies[0])} new fields; HDEL: ${String(replies[1])} removed` : `HDEL: ${String(replies[0])} removed`;
  }
  // A stream entry must have a field; a delete says so, as an entry of its own. NULL fields are left out.
  const entry = record.action === "delete" ? { ...fields, _action: "delete" } : fields;
  if (Object.keys(entry).length === 0)
    throw new ConnectorError("The record has no fields to add to the stream.");
  sent({ line: `XADD ${key}`, body: entry });
  const id = await client.xAdd(
    key,
    "*",
    entry,
    s.maxLength > 0
      ? { TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: s.maxLength } }
      : undefined,
  );
  return `XADD: entry ${id}`;
}

/** Replies that say "not now" (still loading, busy script, failover) are worth a retry. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\b/;

/**
 * A server's error reply refuses the record (WRONGTYPE, OOM, NOPERM…) unless it says "not now";
 * anything else the client throws (the socket closed, the client went offline) is the connection's.
 */
function classify(err: unknown): unknown {
  if (err instanceof ConnectorError) return err;
  const lib = redisLib.loaded();
  // HSET with HDEL runs as MULTI: its failure is the first failed command's reply.
  if (lib && err instanceof lib.MultiErrorReply) err = [...err.errors()][0] ?? err;
  const ErrorReply = lib?.ErrorReply;
  if (ErrorReply && err instanceof ErrorReply)
    return TRANSIENT_REPLY.test(err.message) ? transientError(err.message) : err;
  return transientError(
    `The connection to Redis failed: ${err instanceof Error ? err.message : String(err)}`,
  );
}

async function write(config: Row, records: WriteRecord[]): Promise<WriteOutcome[]> {
  const s = settings(config);
  return connections.sendAll(
    records,
    {
      definition: redisDestinationDefinition,
      config,
      open: () => open(s),
      timeoutMs: s.target.timeoutMs,
      what: s.mode === "hash" ? "HSET" : "XADD",
      inFlight: () => 256,
    },
    (connection, record, sent) =>
      sendOne(s, connection.client, record, sent).catch((err: unknown) => Promise.reject(classify(err))),
  );
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(redisDestinationDefinition, config, async () => {
    const s = settings(config);
    const connection = await open(s);
    try {
      const pong = await connection.client.ping();
      const info = await connection.client.info("server");
      const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? "?";
      return {
        ok: true,
        details: `Connected to Redis ${version} at ${describeTarget(s.target)} (PING answered ${pong}).`,
      };
    } finally {
      await connection.end().catch(() => undefined);
    }
  });
}

export const redisDestination: DestinationConnector = {
  definition: redisDestinationDefinition,
  check,
  discover: async (config) => {
    const s = settings(config);
    return brokerCatalog(config, {
      name: s.mode === "hash" ? "hashes" : "stream_entries",
      url: `${describeTarget(s.target)} ${s.keyTemplate}`,
    });
  },
  write,
  close: (config) => connections.close(config),
};
