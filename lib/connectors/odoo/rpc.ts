// Odoo's external API over JSON-RPC 2.0 (POST <url>/jsonrpc, method "call", params {service, method,
// args}): `common.version`, `common.authenticate` for the user's id, then `object.execute_kw` with
// (database, uid, password, model, method, args, kwargs). An answer carries `result` or an `error`
// object whose data names the server's exception (odoo.exceptions.ValidationError, AccessError…)
// and its message. Every request goes through shared/http.ts (network policy, timeouts); every
// sentence leaving here is scrubbed of the password. Reference: odoo.com/documentation, "External
// API" (the XML-RPC examples; /jsonrpc takes the same services and arguments).
import { ConnectorError } from "../shared/errors";
import { describeExchange, isRetryable, sendHttp, truncate } from "@/lib/net/http";
import { redact } from "../shared/secrets";
import { exactJson, parseJsonExact } from "../shared/values";
import { abortableSleep } from "../shared/sleep";
import type { OdooSettings } from "./definition";

/** Longest a read waits for a throttled call before trying again. */
const MAX_READ_WAIT_MS = 60_000;

/** Largest answer read by default (a page of search_read); calls with small answers ask for less. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Longest server text kept of a refusal (its exception's message) and of an exception's name: a
 * hostile or broken server's megabytes would otherwise be copied into every record's error and log.
 */
export const FAULT_TEXT_LIMIT = 2 * 1024;
const FAULT_NAME_LIMIT = 200;

/** Largest answer to a call whose result is small (version, authenticate, create's ids, or a refusal with its traceback). */
export const SMALL_ANSWER_BYTES = 1024 * 1024;
/** Largest fields_get answer: a model's fields with their selections (thousands of fields fit). */
export const FIELDS_ANSWER_BYTES = 8 * 1024 * 1024;

/** The answer did not come (network, timeout) or was not 2xx: nothing was said about the records. */
export class OdooHttpError extends ConnectorError {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, `http_${status}`);
    this.name = "OdooHttpError";
  }
}

/** Odoo answered with a JSON-RPC error: the server refused the call (its exception's name and message). */
export class OdooFault extends ConnectorError {
  constructor(
    message: string,
    readonly exception: string,
  ) {
    super(message, "odoo_fault");
    this.name = "OdooFault";
  }
}

interface RpcAnswer {
  result?: unknown;
  error?: { code?: number; message?: string; data?: { name?: string; message?: string } };
}

export interface OdooCall {
  /** The request's JSON body as sent (the password in it is masked in any text made of it). */
  body: string;
  result: unknown;
}

/** One logged-in session: the user's id, and calls made as that user. */
export class OdooClient {
  private uid: number | undefined;
  private nextId = 1;

  /**
   * `retries`: how many times a throttled or unavailable answer (429, 503, network) is tried again
   * after Retry-After (or a short backoff). Reads retry here; writes leave it to the engine's
   * Loader, which takes the wait off the worker.
   */
  constructor(
    readonly settings: OdooSettings,
    private readonly signal?: AbortSignal,
    private readonly retries = 0,
  ) {}

  /** Text safe to show: the password masked. */
  scrub(text: string): string {
    return redact(text, [this.settings.password]);
  }

  /** One JSON-RPC call, retried as the constructor says; throws OdooHttpError or OdooFault. */
  async call(service: "common" | "object", method: string, args: unknown[], maxBodyBytes = MAX_ANSWER_BYTES): Promise<OdooCall> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.callOnce(service, method, args, maxBodyBytes);
      } catch (err) {
        if (!(err instanceof OdooHttpError) || !err.retryable || attempt >= this.retries) throw err;
        const waitMs = Math.min(err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 500 * 2 ** attempt, MAX_READ_WAIT_MS);
        await abortableSleep(waitMs, this.signal, () => new ConnectorError("The read was cancelled."));
      }
    }
  }

  private async callOnce(service: "common" | "object", method: string, args: unknown[], maxBodyBytes: number): Promise<OdooCall> {
    const body = exactJson({ jsonrpc: "2.0", method: "call", params: { service, method, args }, id: this.nextId++ });
    const exchange = await sendHttp({
      url: `${this.settings.url}/jsonrpc`,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
      timeoutMs: this.settings.timeoutMs,
      signal: this.signal,
      maxRedirects: 0,
      maxBodyBytes,
    });
    if (exchange.failure || exchange.status < 200 || exchange.status >= 300) {
      throw new OdooHttpError(this.scrub(`Odoo did not answer the call: ${describeExchange(exchange)}`), exchange.status, isRetryable(exchange), exchange.retryAfterSeconds);
    }
    let answer: RpcAnswer;
    try {
      // Exact: a float Odoo writes as 100.0 stays 100.0 (the value model, shared/values.ts).
      answer = parseJsonExact(exchange.bodyText) as RpcAnswer;
    } catch {
      throw new OdooHttpError(this.scrub(`Odoo's answer is not JSON-RPC: ${describeExchange(exchange)}`), exchange.status, false);
    }
    if (answer.error) {
      const name = truncate(String(answer.error.data?.name ?? ""), FAULT_NAME_LIMIT);
      const text = truncate(String(answer.error.data?.message || answer.error.message || "unknown error"), FAULT_TEXT_LIMIT);
      throw new OdooFault(this.scrub(`${text}${name ? ` (${name})` : ""}`), name);
    }
    if (!("result" in answer)) throw new OdooHttpError(this.scrub(`Odoo's answer has neither result nor error: ${describeExchange(exchange)}`), exchange.status, false);
    return { body, result: answer.result };
  }

  /** The server's version string (common.version needs no login). */
  async version(): Promise<string> {
    const { result } = await this.call("common", "version", [], SMALL_ANSWER_BYTES);
    return String((result as { server_version?: unknown } | null)?.server_version ?? "unknown");
  }

  /** The user's id; Odoo answers false for a wrong login, password or database. */
  async login(): Promise<number> {
    if (this.uid !== undefined) return this.uid;
    const { database, username, password } = this.settings;
    let result: unknown;
    try {
      ({ result } = await this.call("common", "authenticate", [database, username, password, {}], SMALL_ANSWER_BYTES));
    } catch (err) {
      if (err instanceof OdooFault) throw new ConnectorError(`Odoo refused the login to database "${database}": ${err.message}`, "auth");
      throw err;
    }
    if (typeof result !== "number" || !Number.isInteger(result)) {
      throw new ConnectorError(`Odoo refused the login of "${username}" to database "${database}": wrong username, password or database.`, "auth");
    }
    this.uid = result;
    return result;
  }

  /** `model.method(*args, **kwargs)` as the logged-in user; an answer longer than `maxBodyBytes` is refused as not JSON-RPC. */
  async execute(model: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}, maxBodyBytes = MAX_ANSWER_BYTES): Promise<OdooCall> {
    const uid = await this.login();
    return this.call("object", "execute_kw", [this.settings.database, uid, this.settings.password, model, method, args, kwargs], maxBodyBytes);
  }

  async result<T>(model: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}, maxBodyBytes = MAX_ANSWER_BYTES): Promise<T> {
    return (await this.execute(model, method, args, kwargs, maxBodyBytes)).result as T;
  }
}
