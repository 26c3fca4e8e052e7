// A Stripe API v1 emulator, written from the published reference (docs.stripe.com/api:
// authentication with the secret key as Bearer or Basic user, form-encoded bodies with bracketed
// keys, errors {error: {type, code, message, param}}, idempotent requests (the first result replayed
// for the same key, with Idempotent-Replayed: true; the same key with other parameters refused),
// customers create/update/list, products create (with an id of yours)/update/list with ids[];
// docs.stripe.com/rate-limits: 25 operations a second in test mode, 429 answers without Retry-After).
// Customers refuse an invalid email and unknown parameters; products need a name and a free id.
// Message wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { FixedWindow, json, startEmulator, type ReceivedRequest } from "./common";

type Row = Record<string, unknown>;

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const CUSTOMER_PARAMS = new Set(["address", "description", "email", "metadata", "name", "payment_method", "phone", "shipping", "preferred_locales", "tax_exempt", "balance"]);
const CUSTOMER_UPDATE_PARAMS = new Set([...CUSTOMER_PARAMS].filter((p) => p !== "payment_method"));
const PRODUCT_PARAMS = new Set(["id", "name", "description", "active", "metadata", "url", "unit_label", "statement_descriptor", "tax_code", "images"]);
const PRODUCT_UPDATE_PARAMS = new Set([...PRODUCT_PARAMS].filter((p) => p !== "id"));

/** A form body with bracketed keys (`address[city]`, `tags[0]`) as nested objects; "" stays "". */
export function parseForm(body: string): Row {
  const out: Row = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, "").split("[");
    let at = out;
    path.forEach((part, i) => {
      if (i === path.length - 1) at[part] = value;
      else at = (at[part] ??= {}) as Row;
    });
  }
  return out;
}

interface Saved {
  body: string;
  status: number;
  response: unknown;
}

export async function startStripeEmulator(options: { apiKey: string }) {
  const customers = new Map<string, Row>();
  const products = new Map<string, Row>();
  const idempotency = new Map<string, Saved>();
  const state = { limiter: new FixedWindow(25, 1000), retryAfter: undefined as string | undefined, nextId: 1, dropResponses: 0 };

  const error = (res: ServerResponse, status: number, err: Row, headers: Record<string, string> = {}) =>
    json(res, status, { error: { type: "invalid_request_error", ...err } }, headers);
  const unknownParam = (params: Row, allowed: Set<string>) => Object.keys(params).find((k) => !allowed.has(k));

  /** One write; the answer it gives is what an idempotency key replays. */
  function write(method: string, path: string, params: Row): { status: number; body: unknown } {
    const refuse = (status: number, err: Row) => ({ status, body: { error: { type: "invalid_request_error", ...err } } });
    const customer = /^\/v1\/customers(?:\/([^/]+))?$/.exec(path);
    if (method === "POST" && customer) {
      const id = customer[1] && decodeURIComponent(customer[1]);
      const existing = id ? customers.get(id) : undefined;
      if (id && !existing) return refuse(404, { code: "resource_missing", message: `No such customer: '${id}'`, param: "id" });
      const unknown = unknownParam(params, id ? CUSTOMER_UPDATE_PARAMS : CUSTOMER_PARAMS);
      if (unknown) return refuse(400, { code: "parameter_unknown", message: `Received unknown parameter: ${unknown}`, param: unknown });
      if (params.email !== undefined && params.email !== "" && !EMAIL.test(String(params.email))) {
        return refuse(400, { code: "email_invalid", message: `Invalid email address: ${String(params.email)}`, param: "email" });
      }
      const next: Row = { object: "customer", livemode: false, ...existing, ...params, id: id ?? `cus_${String(state.nextId++).padStart(6, "0")}` };
      customers.set(next.id as string, next);
      return { status: 200, body: next };
    }
    const product = /^\/v1\/products(?:\/([^/]+))?$/.exec(path);
    if (method === "POST" && product) {
      const id = product[1] && decodeURIComponent(product[1]);
      const existing = id ? products.get(id) : undefined;
      if (id && !existing) return refuse(404, { code: "resource_missing", message: `No such product: '${id}'`, param: "id" });
      const unknown = unknownParam(params, id ? PRODUCT_UPDATE_PARAMS : PRODUCT_PARAMS);
      if (unknown) return refuse(400, { code: "parameter_unknown", message: `Received unknown parameter: ${unknown}`, param: unknown });
      if (!id && !params.name) return refuse(400, { code: "parameter_missing", message: "Missing required param: name.", param: "name" });
      if (!id && typeof params.id === "string" && products.has(params.id)) {
        return refuse(400, { code: "resource_already_exists", message: `Product already exists.`, param: "id" });
      }
      const next: Row = { object: "product", livemode: false, active: "true", ...existing, ...params, id: id ?? params.id ?? `prod_${String(state.nextId++).padStart(6, "0")}` };
      products.set(next.id as string, next);
      return { status: 200, body: next };
    }
    return refuse(404, { message: `Unrecognized request URL (${method}: ${path}).` });
  }

  function list(url: URL, res: ServerResponse) {
    const limit = Number(url.searchParams.get("limit") ?? 10);
    if (!(limit >= 1 && limit <= 100)) return error(res, 400, { code: "parameter_invalid_integer", message: "Invalid integer: limit must be between 1 and 100", param: "limit" });
    const ids = url.searchParams.getAll("ids[]");
    const source = url.pathname === "/v1/customers" ? customers : products;
    const data = [...source.values()].filter((o) => ids.length === 0 || ids.includes(o.id as string)).slice(0, limit);
    json(res, 200, { object: "list", url: url.pathname, has_more: false, data });
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const header = String(req.headers.authorization ?? "");
    const key = header.startsWith("Bearer ") ? header.slice(7) : header.startsWith("Basic ") ? Buffer.from(header.slice(6), "base64").toString().split(":")[0] : "";
    if (key !== options.apiKey) {
      return error(res, 401, { message: `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}` });
    }
    if (!state.limiter.hit(key).allowed) {
      return error(res, 429, { code: "rate_limit", message: "Too many requests hit the API too quickly." }, state.retryAfter ? { "retry-after": state.retryAfter } : {});
    }
    const url = new URL(req.url, "http://emulator");
    if (req.method === "GET" && (url.pathname === "/v1/customers" || url.pathname === "/v1/products")) return list(url, res);
    if (req.method !== "POST") return error(res, 404, { message: `Unrecognized request URL (${req.method}: ${url.pathname}).` });
    if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      return error(res, 400, { message: "Invalid request: bodies must be application/x-www-form-urlencoded." });
    }
    const idemKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined;
    const saved = idemKey ? idempotency.get(idemKey) : undefined;
    const scope = `${url.pathname}\n${req.body}`;
    if (saved && saved.body !== scope) {
      return error(res, 400, { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}'.` });
    }
    if (saved) return json(res, saved.status, saved.response, { "idempotent-replayed": "true", "idempotency-key": idemKey! });
    const result = write(req.method, url.pathname, parseForm(req.body));
    // Stripe saves the result of a request that began executing; a refusal of its parameters is not saved.
    if (idemKey && result.status !== 400) idempotency.set(idemKey, { body: scope, status: result.status, response: result.body });
    // A write done whose answer is lost on the way (a dropped connection): what idempotency keys are for.
    if (state.dropResponses > 0) {
      state.dropResponses--;
      return void res.destroy();
    }
    json(res, result.status, result.body, idemKey ? { "idempotency-key": idemKey } : {});
  }

  const server = await startEmulator(handle);
  return { ...server, customers, products, idempotency, state };
}
