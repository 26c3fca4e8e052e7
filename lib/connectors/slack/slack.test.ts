// Slack destination against a real node:http server playing the Slack Web API and a webhook.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row, WriteRecord } from "../types";
import { json, startHttpServer, streamFor } from "@/tests/support/connectors";
import { slackDestination } from "./destination";

let server: Awaited<ReturnType<typeof startHttpServer>>;
const stream = streamFor("chat_message", { batch_support: false, batch_size: 1 });
const records: WriteRecord[] = [
  { key: "1", action: "insert", payload: { name: "Ada", plan: "pro" } },
  { key: "2", action: "insert", payload: { name: "Linus", plan: "free" } },
];
const bot = (overrides: Row = {}): Row => ({ auth_type: "bot_token", bot_token: "xoxb-secret-token", channel: "C123", base_url: `${server.url}/api`, timeout: 2, ...overrides });

function slackApi(handler?: (body: Row) => [number, unknown, Record<string, string>?]) {
  server.setHandler((req, res) => {
    if (req.url === "/api/auth.test") {
      if (req.headers.authorization === "Bearer xoxb-secret-token") return json(res, 200, { ok: true, team: "Acme", user: "syncbot" });
      return json(res, 200, { ok: false, error: "invalid_auth" });
    }
    const [status, body, headers] = handler?.(JSON.parse(req.body)) ?? [200, { ok: true, ts: "1.2" }];
    json(res, status, body, headers);
  });
}

beforeAll(async () => {
  server = await startHttpServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("Slack destination", () => {
  it("posts one message per record with the bot token, rendering the template", async () => {
    slackApi();
    const outcomes = await slackDestination.write(bot({ message_template: "{{ name }} upgraded to *{{ plan | upcase }}*" }), records, { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(server.requests.map((r) => [r.url, r.headers.authorization, JSON.parse(r.body)])).toEqual([
      ["/api/chat.postMessage", "Bearer xoxb-secret-token", { channel: "C123", text: "Ada upgraded to *PRO*" }],
      ["/api/chat.postMessage", "Bearer xoxb-secret-token", { channel: "C123", text: "Linus upgraded to *FREE*" }],
    ]);
    expect(JSON.stringify(outcomes[0].log)).not.toContain("xoxb-secret-token");
  });

  it("takes the reference's settings (api_token, channel_id, no auth_type); they win over bot_token and channel", async () => {
    slackApi();
    const reference: Row = { api_token: "xoxb-secret-token", channel_id: "C777", base_url: `${server.url}/api`, timeout: 2 };
    expect(await slackDestination.check(reference)).toMatchObject({ ok: true });
    await slackDestination.write({ ...reference, bot_token: "xoxb-older", channel: "C123" }, records.slice(0, 1), { stream, batch: false });
    const sent = server.requests.filter((r) => r.url === "/api/chat.postMessage");
    expect(sent.map((r) => [r.headers.authorization, JSON.parse(r.body).channel])).toEqual([["Bearer xoxb-secret-token", "C777"]]);
  });

  it("sends the payload as JSON without a template", async () => {
    slackApi();
    await slackDestination.write(bot(), records.slice(0, 1), { stream, batch: false });
    expect(JSON.parse(server.requests[0].body).text).toBe(JSON.stringify(records[0].payload));
  });

  it("treats {ok:false} as a failure and 429 as retryable with Retry-After", async () => {
    slackApi((body) => (String(body.text).includes("Ada") ? [200, { ok: false, error: "channel_not_found" }] : [429, { ok: false, error: "ratelimited" }, { "retry-after": "30" }]));
    const [a, b] = await slackDestination.write(bot({ message_template: "{{ name }}" }), records, { stream, batch: false });
    expect(a).toMatchObject({ ok: false, status: 200, retryable: false, error: "Slack refused the message: channel_not_found." });
    expect(b).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 30 });
  });

  it("times out on a slow Slack as a retryable failure", async () => {
    server.setHandler((_req, res) => {
      setTimeout(() => json(res, 200, { ok: true }), 2500);
    });
    const [a] = await slackDestination.write(bot({ timeout: 1 }), records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: false, status: 0, retryable: true });
  });

  it("posts through an incoming webhook", async () => {
    server.setHandler((req, res) => {
      res.writeHead(req.url === "/services/T/B/X" ? 200 : 404, { "content-type": "text/plain" });
      res.end(req.url === "/services/T/B/X" ? "ok" : "no_service");
    });
    const config = { auth_type: "webhook", webhook_url: `${server.url}/services/T/B/X`, message_template: "Hi {{ name }}" };
    const [a] = await slackDestination.write(config, records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: true, status: 200 });
    expect(JSON.parse(server.requests[0].body)).toEqual({ text: "Hi Ada" });
    // The webhook URL is the credential: its log shows the origin only.
    expect(a.log).toEqual({ level: "info", request: { line: `POST ${server.url}/*************`, body: '{"text":"Hi Ada"}' }, response: { line: "HTTP 200", body: "ok" } });
    const [b] = await slackDestination.write({ ...config, webhook_url: `${server.url}/services/gone` }, records.slice(0, 1), { stream, batch: false });
    expect(b).toMatchObject({ ok: false, status: 404, retryable: false, error: expect.stringContaining("no_service") });
  });

  it("discovers one schemaless message stream", async () => {
    const catalog = await slackDestination.discover(bot());
    expect(catalog).toMatchObject({ schema_mode: "schemaless", source_defined_cursor: false });
    expect(catalog.streams).toEqual([expect.objectContaining({ name: "chat_message", supported_sync_modes: ["full_refresh", "incremental"] })]);
  });

  it("checks the bot token and never echoes it", async () => {
    slackApi();
    expect(await slackDestination.check(bot())).toEqual({ ok: true, details: 'Connected to Slack workspace "Acme" as syncbot.' });
    const bad = await slackDestination.check(bot({ bot_token: "xoxb-wrong-token" }));
    expect(bad).toEqual({ ok: false, details: "Slack rejected the bot token: invalid_auth." });
  });

  it("checks a webhook without posting a message", async () => {
    server.setHandler((req, res) => {
      res.writeHead(req.url === "/services/T/B/X" ? 400 : 403, { "content-type": "text/plain" });
      res.end(req.url === "/services/T/B/X" ? "no_text" : "invalid_token");
    });
    expect((await slackDestination.check({ auth_type: "webhook", webhook_url: `${server.url}/services/T/B/X` })).ok).toBe(true);
    const dead = await slackDestination.check({ auth_type: "webhook", webhook_url: `${server.url}/services/dead` });
    expect(dead).toEqual({ ok: false, details: expect.stringMatching(/refused the request: HTTP 403 .*invalid_token/) });
  });

  it("refuses private targets unless OUTBOUND_ALLOW_PRIVATE allows them", async () => {
    slackApi();
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [a] = await slackDestination.write(bot(), records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(server.requests).toHaveLength(0);
  });
});
