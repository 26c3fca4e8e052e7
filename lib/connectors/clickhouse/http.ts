// ClickHouse's HTTP interface, spoken directly (POST the query, stream the answer's bytes). Every
// connection goes through the outbound guard: the URL is checked (IP literals) and each connection
// resolves its host through the guarded dispatcher (lib/net), so it reaches exactly the addresses that were checked.
import { createHash, randomUUID } from "node:crypto";
import { guardedDispatcher, type Dispatcher } from "@/lib/net/http";
import { OutboundBlockedError, systemResolver } from "@/lib/net/policy";
import { openStream } from "@/lib/net/stream";
import { setBounded } from "../shared/bounded-cache";
import { ConnectorError, errorMessage } from "../shared/errors";
import type { ClickhouseConfig } from "./config";
import { quoteString } from "./values";

/** An error ClickHouse answered with: its code (`Code: 193`) and its text. */
export class ClickhouseError extends Error {
  constructor(
    readonly code: number | undefined,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ClickhouseError";
  }
}

/** `Code: 193, e.displayText() = DB::Exception: Wrong password…` (18.x) or `Code: 516. DB::Exception: …` (newer). */
export function parseClickhouseError(body: string, status?: number): ClickhouseError {
  const text = body.trim();
  const m = /^Code:\s*(\d+)[.,]\s*(?:e\.displayText\(\) = )?(?:DB::Exception: )?([\s\S]*?)(?:, e\.what\(\) = DB::Exception)?(?: \(version [^)]*\))?\s*$/.exec(text);
  if (m) return new ClickhouseError(Number(m[1]), m[2].replace(/ \([A-Z_]+\)$/, "").trim(), status);
  return new ClickhouseError(undefined, text.slice(0, 500) || `HTTP ${status ?? "?"} with an empty body`, status);
}

export interface ChCall {
  sql: string;
  /** Settings sent as URL parameters. */
  settings?: Record<string, string>;
  queryId?: string;
  signal?: AbortSignal;
  /** Longest wait for the answer to start (the server's own max_execution_time usually answers first). */
  timeoutMs: number;
}

export interface ChResponse {
  body: AsyncIterable<Uint8Array>;
  queryId: string;
  /** Drops the connection (the server notices when it next writes). */
  destroy(): void;
}

/** A dispatcher per operation: the guarded lookup, the configured connect timeout; closed after. */
export function dispatcher(c: ClickhouseConfig): Dispatcher {
  return guardedDispatcher(systemResolver, { connectTimeoutMs: c.connectTimeoutMs, keepAliveTimeoutMs: 1000 });
}

function authHeader(c: ClickhouseConfig): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`, "utf8").toString("base64")}`;
}

/** Longest error body read (its start says enough). */
const ERROR_BODY_BYTES = 64 * 1024;
/** Longest answer queryText takes (checks, discovery, a model's columns). */
export const MAX_TEXT_ANSWER_BYTES = 16 * 1024 * 1024;
/** Time given past the query timeout for the answer to travel, before a call is abandoned. */
const TRANSFER_MARGIN_MS = 2000;

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * At most `limit` bytes of a body as text. Past the limit the body is destroyed (so the server
 * sends no more); `overflow` says whether the start is kept ("cut") or the read fails.
 */
async function readText(
  body: AsyncIterable<Uint8Array>,
  destroy: () => void,
  limit: number,
  overflow: "cut" | "fail",
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.byteLength;
    if (size > limit) {
      destroy();
      if (overflow === "fail") throw new ConnectorError(`ClickHouse's answer is larger than ${sizeText(limit)}, more than this query's answer can be; is the url a ClickHouse HTTP port?`);
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

/**
 * Sends one query; resolves once the answer's headers arrived with a 200 (its body still to be
 * read), else throws ClickhouseError, OutboundBlockedError or the network's error.
 */
export async function openQuery(c: ClickhouseConfig, call: ChCall, agent: Dispatcher): Promise<ChResponse> {
  const queryId = call.queryId ?? randomUUID();
  const url = new URL(c.endpoint);
  url.searchParams.set("database", c.database);
  url.searchParams.set("query_id", queryId);
  for (const [k, v] of Object.entries(call.settings ?? {})) url.searchParams.set(k, v);
  const res = await openStream(url, {
    method: "POST",
    headers: { authorization: authHeader(c), "content-type": "text/plain; charset=utf-8", "user-agent": "datasync" },
    body: call.sql,
    dispatcher: agent,
    signal: call.signal,
    headersTimeout: call.timeoutMs + 5000,
    // The body's pauses are timed by the reader, which knows when it is waiting (not while its
    // consumer works on a batch).
    bodyTimeout: 0,
  });
  if (res.statusCode !== 200) {
    // The error body is bounded in size and in time (bodyTimeout is off).
    const timer = setTimeout(() => res.body.destroy(), call.timeoutMs);
    try {
      throw parseClickhouseError(await readText(res.body, () => res.body.destroy(), ERROR_BODY_BYTES, "cut").catch(() => ""), res.statusCode);
    } finally {
      clearTimeout(timer);
    }
  }
  return { body: res.body, queryId, destroy: () => res.body.destroy() };
}

/**
 * Runs a query and returns its whole (small) answer as text: checks, discovery, settings. The whole
 * call (answer included) ends by the query timeout plus a margin, or when `call.signal` aborts.
 */
export async function queryText(c: ClickhouseConfig, call: ChCall, maxBytes = MAX_TEXT_ANSWER_BYTES): Promise<string> {
  const agent = dispatcher(c);
  const controller = new AbortController();
  const onAbort = () => controller.abort(call.signal?.reason);
  if (call.signal?.aborted) onAbort();
  call.signal?.addEventListener("abort", onAbort, { once: true });
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    controller.abort();
  }, call.timeoutMs + TRANSFER_MARGIN_MS);
  try {
    const res = await openQuery(c, { ...call, signal: controller.signal }, agent);
    return await readText(res.body, res.destroy, maxBytes, "fail");
  } catch (err) {
    if (late) throw new ConnectorError(`ClickHouse did not finish answering within the ${Math.round(call.timeoutMs / 1000)} s query timeout.`);
    throw err;
  } finally {
    clearTimeout(deadline);
    call.signal?.removeEventListener("abort", onAbort);
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * Asks the server to stop a query (a dropped connection alone does not stop one that is still
 * computing). Best effort: bounded, never throws.
 */
export async function killQuery(c: ClickhouseConfig, queryId: string): Promise<void> {
  await queryText(c, { sql: `KILL QUERY WHERE query_id = ${quoteString(queryId)} ASYNC`, timeoutMs: 5000 }).catch(() => undefined);
}

/** Readonly levels per (endpoint, user, password) hash: bounded, and only ever "0", "1" or "2". */
const readonlyLevels = new Map<string, { level: "0" | "1" | "2"; at: number }>();
const LEVEL_TTL_MS = 5 * 60_000;
const LEVEL_CACHE_LIMIT = 1000;

/** How many readonly levels are cached (tests). */
export function cachedReadonlyLevels(): number {
  return readonlyLevels.size;
}

/**
 * The settings a model query runs with. `readonly=1` makes the server refuse writes, settings
 * changes and table functions (file, url, remote…); `max_execution_time` bounds it. A user whose
 * profile is readonly=1 may change neither (the server already refuses writes: only the client
 * side timeout and KILL QUERY apply); with readonly=2 only the timeout can be set.
 */
export async function querySettings(c: ClickhouseConfig, signal?: AbortSignal): Promise<Record<string, string>> {
  const key = createHash("sha256").update(JSON.stringify([c.endpoint, c.username, c.password])).digest("hex");
  let cached = readonlyLevels.get(key);
  if (!cached || Date.now() - cached.at > LEVEL_TTL_MS) {
    const text = (await queryText(c, { sql: "SELECT value FROM system.settings WHERE name = 'readonly'", timeoutMs: c.queryTimeoutMs, signal }, 1024)).trim() || "0";
    if (text !== "0" && text !== "1" && text !== "2") {
      throw new ConnectorError(`${c.where} answered "${text.slice(0, 40)}" for the readonly setting, which is 0, 1 or 2 on ClickHouse: is the url a ClickHouse HTTP port?`);
    }
    cached = { level: text, at: Date.now() };
    setBounded(readonlyLevels, key, cached, LEVEL_CACHE_LIMIT);
  }
  const seconds = String(Math.max(1, Math.ceil(c.queryTimeoutMs / 1000)));
  if (cached.level === "0") return { readonly: "1", max_execution_time: seconds };
  if (cached.level === "2") return { max_execution_time: seconds };
  return {};
}

/** A sentence for a failure, safe to show (the caller scrubs secrets too). */
export function describeClickhouseError(err: unknown, c?: ClickhouseConfig): string {
  if (err instanceof ConnectorError) return err.message;
  const seconds = c ? Math.round(c.queryTimeoutMs / 1000) : undefined;
  if (err instanceof ClickhouseError) {
    const user = c ? `"${c.username}"` : "the user";
    switch (err.code) {
      case 192:
      case 193:
      case 516:
        return `ClickHouse refused the username or password of ${user}. Check them.`;
      case 81:
        return c ? `Database "${c.database}" does not exist on ${c.where}.` : err.message;
      case 159:
        return `The query was stopped after the ${seconds ?? "configured"} s query timeout.`;
      case 394:
        return "The query was cancelled.";
      case 164:
        return `The query needs more than reading (${err.message}); models only read rows.`;
      case 195:
        return `ClickHouse does not accept connections from this address for ${user} (${err.message}).`;
    }
    if (err.code !== undefined) return `ClickHouse error ${err.code}: ${err.message}`;
    if (/clickhouse-client|native protocol/i.test(err.message)) {
      return `${c?.where ?? "The server"} answers with ClickHouse's native protocol; use the HTTP port (8123, or 8443 with https).`;
    }
    return `HTTP ${err.status ?? "error"} from ${c?.where ?? "the server"}: ${err.message.slice(0, 300)}`;
  }
  const e = err as { code?: string; name?: string; cause?: unknown };
  const cause = (e.cause ?? {}) as { code?: string };
  const code = e.code ?? cause.code;
  if (e.cause instanceof OutboundBlockedError) return e.cause.message;
  const where = c?.where ?? "the server";
  switch (code) {
    case "ECONNREFUSED":
      return `Could not connect to ${where}: connection refused. Check the url's host and port (the HTTP port: 8123, or 8443 with https).`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Could not resolve the host name of ${where}. Check the url.`;
    case "UND_ERR_CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return `Timed out after ${c ? Math.round(c.connectTimeoutMs / 1000) : "?"} s connecting to ${where}. Check the url and firewall.`;
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return `ClickHouse did not answer within the ${seconds ?? "configured"} s query timeout.`;
    case "UND_ERR_SOCKET":
    case "ECONNRESET":
      return `The connection to ${where} was closed: ${errorMessage(err)}.`;
    case "EPROTO":
    case "ERR_SSL_WRONG_VERSION_NUMBER":
      return `TLS failed with ${where}: is the url's scheme (http or https) the one its port speaks?`;
  }
  if (e.name === "AbortError") return "The query was cancelled.";
  return errorMessage(err);
}
