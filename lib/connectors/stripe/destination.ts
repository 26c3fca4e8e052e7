// Stripe (REST API v1, form-encoded bodies): the reference's `Customer` and `Product` streams, one
// object a request (Stripe has no bulk write). A customer record without an id is created
// (POST /v1/customers; Stripe chooses customer ids), one with an id updates that customer
// (POST /v1/customers/{id}). A product record's id is its own: the write first lists which of the
// chunk's ids exist (GET /v1/products?ids[]=…), then updates those and creates the rest with their id.
// Every request carries an Idempotency-Key made from the engine's delivery key (one delivery of one
// version of a record: equal across its retries and resumed runs, new when the row comes back to an
// earlier version or a full refresh sends it again) and the exact request, so a request retried after
// a timeout or a 5xx is answered by Stripe from its first result instead of creating a second object,
// while a later delivery is never taken for a replay. Secret key as Bearer; errors are
// {error: {type, code, message, param}}.
// Reference: docs.stripe.com/api (authentication, errors, idempotent requests, request encoding,
// customers, products; rate limits: 100 operations a second live, 25 in test mode, 429 answers).
import { createHmac } from "node:crypto";
import { secrets } from "@/lib/settings/secrets";
import type { Row, WriteRecord } from "../types";
import { ConnectorError } from "../shared/errors";
import { defineRestDestination } from "../rest-kit/define";
import { restSpecification, secretField } from "../rest-kit/fields";
import { formBody } from "../rest-kit/form";
import type { RestCalls, RestContext, RestResponse, WriteEndpoint } from "../rest-kit/types";
import { STRIPE_STREAMS, stripeObjectOf, type StripeObject } from "./streams";

const BASE_URL = "https://api.stripe.com";
/** Pinned so that object shapes and errors do not change under the connector. */
const STRIPE_VERSION = "2024-06-20";
/** Most ids a product list request may name (its `limit` maximum). */
const LIST_LIMIT = 100;

const objectOf = (ctx: RestContext): StripeObject => {
  const object = stripeObjectOf(ctx.stream.name);
  if (!object) throw new ConnectorError(`Stripe has no stream "${ctx.stream.name}" here: write to Customer or Product.`);
  return object;
};

/** What one record sends: where, which parameters, and the key Stripe replays a retry by. */
export interface StripeItem {
  path: string;
  params: Row;
  idempotency_key: string;
}

/**
 * This server's key for Stripe idempotency keys: derived from ENCRYPTION_KEY (kept across restarts),
 * under a label of its own so the encryption key itself is never used for anything else.
 */
function keyingSecret(): Buffer {
  return createHmac("sha256", secrets().encryptionKey).update("datasync stripe idempotency v1").digest();
}

/**
 * Stripe replays any key it saw in the last 24 hours, so the key names one delivery, not one
 * payload: `delivery` is the engine's key for this attempt at this version of the record (the same
 * on every retry, resumed run and worker restart; another when A → B → A sends A again, or a full
 * refresh re-sends it). Without one (a direct call), the record's key stands in. The request is in it
 * too, so a retry whose request changed (a product created meanwhile is now updated) is a new key.
 * An HMAC with the server's secret: the key shows in Stripe's logs and ours, and must not let anyone
 * who sees it confirm a guessed record.
 */
export function idempotencyKey(delivery: string, stream: string, path: string, params: Row): string {
  const digest = createHmac("sha256", keyingSecret()).update(JSON.stringify([delivery, stream, path, formBody(params)])).digest("hex");
  return `datasync-${digest.slice(0, 48)}`;
}

const deliveryOf = (record: WriteRecord) => record.idempotencyKey ?? `record:${record.key}`;

const present = (value: unknown) => value !== null && value !== undefined && value !== "";

/**
 * The record's parameters. Creating, a null is left out (there is nothing to clear); updating, it
 * goes as an empty value, which Stripe reads as "clear this field".
 */
function params(record: WriteRecord, updating: boolean, without: string[]): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(record.payload)) {
    if (value === undefined || without.includes(key) || (value === null && !updating)) continue;
    out[key] = value;
  }
  return out;
}

function customerItem(record: WriteRecord, ctx: RestContext): StripeItem {
  const id = record.payload.id;
  const updating = present(id);
  const path = updating ? `/v1/customers/${encodeURIComponent(String(id))}` : "/v1/customers";
  // Stripe attaches a payment method when it creates the customer; an update does not take one.
  const body = params(record, updating, updating ? ["id", "payment_method"] : ["id"]);
  return { path, params: body, idempotency_key: idempotencyKey(deliveryOf(record), ctx.stream.name, path, body) };
}

function productItem(record: WriteRecord, ctx: RestContext): StripeItem {
  const id = present(record.payload.id) ? String(record.payload.id) : undefined;
  const existing = (ctx.prepared as Set<string> | undefined) ?? new Set<string>();
  const updating = id !== undefined && existing.has(id);
  const path = updating ? `/v1/products/${encodeURIComponent(id)}` : "/v1/products";
  const body = params(record, updating, updating ? ["id"] : []);
  if (!updating && !present(body.name)) throw new ConnectorError("The record has no name, which Stripe needs to create a product.");
  return { path, params: body, idempotency_key: idempotencyKey(deliveryOf(record), ctx.stream.name, path, body) };
}

/** The ids among the records' that are products already, asked 100 at a time. */
async function existingProducts(ctx: RestContext & RestCalls, records: WriteRecord[]): Promise<Set<string>> {
  const ids = [...new Set(records.map((r) => r.payload.id).filter(present).map(String))];
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += LIST_LIMIT) {
    const chunk = ids.slice(i, i + LIST_LIMIT);
    const response = await ctx.send({ method: "GET", path: "/v1/products", query: { "ids[]": chunk, limit: String(LIST_LIMIT) } });
    for (const product of (response.body as { data?: { id?: string }[] } | undefined)?.data ?? []) if (product.id) found.add(product.id);
  }
  return found;
}

const upsert: WriteEndpoint = {
  async prepare(ctx, records) {
    return objectOf(ctx) === "product" ? existingProducts(ctx, records) : undefined;
  },
  item: (record, ctx) => (objectOf(ctx) === "customer" ? customerItem(record, ctx) : productItem(record, ctx)),
  request(items, ctx) {
    const item = items[0] as StripeItem | undefined;
    if (!item) return { method: "POST", path: objectOf(ctx) === "customer" ? "/v1/customers" : "/v1/products", encoding: "form", body: {} };
    return { method: "POST", path: item.path, encoding: "form", body: item.params, headers: { "idempotency-key": item.idempotency_key } };
  },
  results: (response) => [{ ok: true, detail: { id: (response.body as { id?: string } | undefined)?.id, replayed: response.headers["idempotent-replayed"] === "true" } }],
};

interface StripeError {
  type?: string;
  code?: string;
  message?: string;
  param?: string;
  decline_code?: string;
}

/** "No such customer: 'cus_1' (resource_missing, param id)" out of Stripe's error body. */
export function stripeErrorText(response: RestResponse): string | undefined {
  const error = (response.body as { error?: StripeError } | undefined)?.error;
  if (!error?.message) return undefined;
  const about = [error.code ?? error.type, error.param ? `param ${error.param}` : undefined].filter(Boolean).join(", ");
  return about ? `${error.message} (${about})` : error.message;
}

export const stripeDestination = defineRestDestination({
  definition: {
    name: "Stripe",
    title: "Stripe",
    category: "Payments",
    icon: "/icons/stripe.svg",
    documentationUrl: "https://docs.stripe.com/api",
    // Stripe's own keys last 24 hours: the engine's delivery ledger gives each delivery its key.
    idempotentWrites: false,
    connectionSpecification: restSpecification(
      "Stripe",
      BASE_URL,
      { api_key: secretField("API Key", "A secret key (sk_live_… or sk_test_…) or a restricted key (rk_…) that may write customers and products.") },
      ["api_key"],
    ),
  },
  baseUrl: BASE_URL,
  auth: { kind: "bearer", field: "api_key" },
  headers: { "stripe-version": STRIPE_VERSION },
  limits: { maxRecords: 1 },
  // Test mode's 25 operations a second, which live mode's 100 also allows.
  rate: { limit: 25, unit: "second", concurrency: 4 },
  writes: { upsert },
  check: {
    request: () => ({ method: "GET", path: "/v1/customers", query: { limit: "1" } }),
    describe: (_response, config) => `Connected to Stripe (${/^(sk|rk)_live_/.test(String(config.api_key)) ? "live" : "test"} mode).`,
  },
  async discover() {
    return STRIPE_STREAMS;
  },
  errorText: stripeErrorText,
  // 409: another request with the same key is still running, or a lock timed out: Stripe says retry.
  retryableStatuses: [409],
  // Stripe's 429 names no wait; its limiter counts by the second.
  retryAfter: (response) => (response.status === 429 ? 1 : undefined),
  rateLimitHeaders: ["idempotent-replayed"],
});
