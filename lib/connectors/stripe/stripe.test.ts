// Stripe destination against the Stripe API emulator (tests/emulators/stripe.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError, validateConfiguration } from "../registry";
import { loadThrough, records } from "@/tests/emulators/common";
import { parseForm, startStripeEmulator } from "@/tests/emulators/stripe";
import { formBody } from "../rest-kit/form";
import { JsonNumber } from "../shared/values";
import { idempotencyKey as deliveryKey } from "@/lib/engine/delivery-ledger";
import { idempotencyKey, stripeDestination } from "./destination";

const KEY = "sk_test_51AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
let st: Awaited<ReturnType<typeof startStripeEmulator>>;
let streams: Record<string, Stream>;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, base_url: st.url, timeout: 5, ...overrides });
const customer = (i: number): Row => ({ email: `c${i}@example.com`, name: `Customer ${i}`, metadata: { crm_id: `crm-${i}` }, address: { city: "Lyon", country: "FR" } });
const writes = () => st.requests.filter((r) => r.method === "POST");

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  st = await startStripeEmulator({ apiKey: KEY });
  streams = Object.fromEntries((await stripeDestination.discover(config())).streams.map((s) => [s.name, s]));
});
afterAll(() => st.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  st.requests.length = 0;
  st.customers.clear();
  st.products.clear();
  st.idempotency.clear();
  st.state.limiter.reset();
  Object.assign(st.state, { retryAfter: undefined, dropResponses: 0 });
  Object.assign(st.state.limiter, { max: 25, windowMs: 1000 });
});

describe("Stripe destination", () => {
  it("takes the reference's settings: an API key alone", () => {
    const definition = getDefinition("Stripe", "destination")!;
    expect(definition).toMatchObject({ category: "Payments", writeModes: ["upsert"] });
    expect(validateConfiguration(definition, { api_key: KEY })).toEqual([]);
    expect(validateConfiguration(definition, {}).map((e) => e.path)).toEqual(["api_key"]);
  });

  it("checks the key as Bearer, pinning the API version", async () => {
    expect(await stripeDestination.check(config())).toEqual({ ok: true, details: "Connected to Stripe (test mode)." });
    expect(st.requests[0].headers).toMatchObject({ authorization: `Bearer ${KEY}`, "stripe-version": "2024-06-20" });
    const bad = await stripeDestination.check(config({ api_key: "sk_test_wrongwrongwrong1234" }));
    expect(bad.ok).toBe(false);
    expect(bad.details).toMatch(/^Stripe rejected the credentials\. Stripe answered HTTP 401: Invalid API Key provided: sk_test_\*+1234 \(invalid_request_error\)$/);
  });

  it("discovers the reference's Customer and Product streams, one object a request", () => {
    expect(Object.keys(streams)).toEqual(["Customer", "Product"]);
    expect(streams.Customer).toMatchObject({ batch_support: false, batch_size: 1, primary_key: ["id"] });
  });

  it("encodes bodies as Stripe's forms: brackets for objects and arrays, exact numbers, null as empty", () => {
    expect(formBody({ email: "a+b@x.co", address: { city: "São Paulo" }, preferred_locales: ["fr", "en"], balance: new JsonNumber("12345678901234567890"), active: false, phone: null })).toBe(
      "email=a%2Bb%40x.co&address[city]=S%C3%A3o%20Paulo&preferred_locales[0]=fr&preferred_locales[1]=en&balance=12345678901234567890&active=false&phone=",
    );
  });

  it("creates customers form-encoded with an idempotency key each; Stripe's error fails its record alone", async () => {
    const batch = records(3, customer);
    batch[1].payload.email = "not-an-email";
    const { outcomes } = await loadThrough(stripeDestination, config(), streams.Customer, batch);
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", true]]);
    expect(outcomes[1]).toMatchObject({ status: 400, retryable: false, error: "Stripe answered HTTP 400: Invalid email address: not-an-email (email_invalid, param email)" });
    const first = writes()[0];
    expect(first.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(parseForm(first.body)).toEqual({ email: "c1@example.com", name: "Customer 1", metadata: { crm_id: "crm-1" }, address: { city: "Lyon", country: "FR" } });
    const keys = writes().map((r) => r.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toBe(idempotencyKey("record:1", "Customer", "/v1/customers", customer(1)));
    expect(st.customers.size).toBe(2);
  });

  it("updates the customer a record names by id, clearing fields mapped to null; an unknown id fails alone", async () => {
    await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    const [id] = st.customers.keys();
    const outcomes = await loadThrough(stripeDestination, config(), streams.Customer, [
      { key: "1", action: "upsert", payload: { id, name: "Renamed", phone: null, payment_method: "pm_card_visa" } },
      { key: "2", action: "upsert", payload: { id: "cus_missing", name: "Nobody" } },
    ]);
    expect(outcomes.outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(outcomes.outcomes[1].error).toBe("Stripe answered HTTP 404: No such customer: 'cus_missing' (resource_missing, param id)");
    const update = writes()[1];
    expect([update.url, update.body]).toEqual([`/v1/customers/${id}`, "name=Renamed&phone="]);
    expect(st.customers.get(id)).toMatchObject({ name: "Renamed", phone: "", email: "c1@example.com" });
  });

  it("creates products with their own id, and updates those that exist (listed first)", async () => {
    const product = (i: number): Row => ({ id: `prod_sku${i}`, name: `Widget ${i}`, active: true, metadata: { sku: `sku${i}` } });
    await loadThrough(stripeDestination, config(), streams.Product, records(2, product));
    expect(st.products.size).toBe(2);
    st.requests.length = 0;
    const { outcomes } = await loadThrough(stripeDestination, config(), streams.Product, [
      { key: "1", action: "upsert", payload: { id: "prod_sku1", name: "Widget one", active: false } },
      { key: "3", action: "upsert", payload: { id: "prod_sku3", description: "no name" } },
      { key: "4", action: "upsert", payload: { id: "prod_sku4", name: "Widget 4", colour: "red" } },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false]);
    expect(outcomes[1].error).toBe("The record has no name, which Stripe needs to create a product.");
    expect(outcomes[2].error).toBe("Stripe answered HTTP 400: Received unknown parameter: colour (parameter_unknown, param colour)");
    const lists = st.requests.filter((r) => r.method === "GET");
    expect(lists.map((r) => decodeURIComponent(r.url))).toContain("/v1/products?ids[]=prod_sku1&limit=100");
    expect(writes().map((r) => [r.url, r.body])).toEqual([
      ["/v1/products/prod_sku1", "name=Widget%20one&active=false"],
      ["/v1/products", "id=prod_sku4&name=Widget%204&colour=red"],
    ]);
    expect(st.products.get("prod_sku1")).toMatchObject({ name: "Widget one", active: "false", metadata: { sku: "sku1" } });
  });

  it("a retry after a lost answer is replayed by its idempotency key: no duplicate customer", async () => {
    st.state.dropResponses = 1;
    const { outcomes } = await loadThrough(stripeDestination, config(), streams.Customer, records(1, customer));
    expect(outcomes[0].ok).toBe(true);
    const sent = writes();
    expect(sent).toHaveLength(2);
    expect(sent[1].headers["idempotency-key"]).toBe(sent[0].headers["idempotency-key"]);
    expect(st.customers.size).toBe(1);
    // The same record sent again later is answered from the first result too; an edited one is written.
    await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    expect(st.customers.size).toBe(1);
    await stripeDestination.write(config(), records(1, (i) => ({ ...customer(i), name: "Edited" })), { stream: streams.Customer, batch: false });
    expect(st.customers.size).toBe(2);
  });

  it("A → B → A in one day is written each time: every delivery has its own key, a retry of one keeps it", async () => {
    // Finding 6: the key was a hash of the request alone, so Stripe replayed the third delivery (A
    // again, within its 24 hours) from the first one's answer and the customer stayed at B.
    expect(stripeDestination.definition.idempotentWrites).toBe(false);
    await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    const [id] = st.customers.keys();
    const delivery = (seq: number, name: string) => ({
      key: "1",
      action: "upsert" as const,
      payload: { id, name },
      // What the engine's delivery ledger gives the record: one key per delivery of one version.
      idempotencyKey: deliveryKey({ syncId: 7, primaryKey: "1", action: "upsert", fingerprint: `fp-${name}`, seq, generation: "" }),
    });
    const names: string[] = [];
    for (const [seq, name] of [[1, "A"], [2, "B"], [3, "A"]] as const) {
      const [outcome] = await stripeDestination.write(config(), [delivery(seq, name)], { stream: streams.Customer, batch: false });
      expect(outcome.ok).toBe(true);
      names.push(st.customers.get(id)?.name as string);
    }
    expect(names).toEqual(["A", "B", "A"]);
    const keys = writes().slice(1).map((r) => r.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(3);
    // A retry of one delivery (a lost answer, a resumed run after a worker restart) keeps its key and is replayed.
    st.state.dropResponses = 1;
    const { outcomes } = await loadThrough(stripeDestination, config(), streams.Customer, [{ ...delivery(4, "C"), payload: { name: "New one" } }]);
    expect(outcomes[0].ok).toBe(true);
    const [lost, retried] = writes().slice(-2);
    expect(retried.headers["idempotency-key"]).toBe(lost.headers["idempotency-key"]);
    expect(st.customers.size).toBe(2);
    // Keyed with the server's secret: the key of a guessed request cannot be recomputed from the request alone.
    expect(idempotencyKey("d", "Customer", "/v1/customers", {})).toMatch(/^datasync-[0-9a-f]{48}$/);
  });

  it("retries a 429 after a second (Stripe names no wait), and honours a Retry-After when one comes", async () => {
    Object.assign(st.state.limiter, { max: 1, windowMs: 1000 });
    await stripeDestination.check(config());
    const [throttled] = await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: "Stripe answered HTTP 429: Too many requests hit the API too quickly. (rate_limit)" });
    st.state.retryAfter = "2";
    const [withHeader] = await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    expect(withHeader).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 2 });
    st.state.retryAfter = undefined;
    st.state.limiter.reset();
    await stripeDestination.check(config());
    const { outcomes } = await loadThrough(stripeDestination, config(), streams.Customer, records(2, customer), { maxAttempts: 3 });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(st.customers.size).toBe(2);
  });

  it("masks the key everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("Stripe", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await stripeDestination.write(config(), records(1, (i) => ({ ...customer(i), email: "bad" })), { stream: streams.Customer, batch: false });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    const bad = await stripeDestination.check(config({ api_key: `${KEY}x` }));
    expect(JSON.stringify(bad)).not.toContain(KEY);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await stripeDestination.write(config(), records(1, customer), { stream: streams.Customer, batch: false });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(st.requests).toHaveLength(0);
  });
});
