// Slack destination: one message per record, through a bot token (chat.postMessage) or an
// incoming webhook. Slack answers HTTP 200 with {ok:false, error} for most failures.
import type { Catalog, CheckResult, DestinationConnector, Row, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { mapLimit } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { secondsToMs, stringField } from "../shared/config";
import { ConnectorError, safeCheck } from "../shared/errors";
import { SECRET_MASK } from "../shared/secrets";
import { describeExchange, isSuccess, parseJsonBody, sendHttp, type HttpExchange } from "@/lib/net/http";
import { outcomeFromExchange } from "../shared/http-outcomes";
import { renderTemplate } from "../shared/liquid";
import { slackDestinationDefinition } from "./definition";

interface SlackSettings {
  mode: "bot_token" | "webhook";
  token: string;
  channel: string;
  webhookUrl: string;
  template: string;
  baseUrl: string;
  timeoutMs: number;
}

/**
 * The typed settings. The reference's api_token and channel_id win over our earlier bot_token and
 * channel when both are set; without auth_type, a bot token is meant (as the reference has it).
 */
export function settings(config: Row): SlackSettings {
  const mode = stringField(config, "auth_type", "bot_token") === "webhook" ? "webhook" : "bot_token";
  const either = (reference: string, earlier: string) => stringField(config, reference, "") || stringField(config, earlier);
  return {
    mode,
    token: mode === "bot_token" ? either("api_token", "bot_token") : "",
    channel: mode === "bot_token" ? either("channel_id", "channel") : "",
    webhookUrl: mode === "webhook" ? stringField(config, "webhook_url") : "",
    template: stringField(config, "message_template", ""),
    baseUrl: stringField(config, "base_url", "https://slack.com/api").replace(/\/+$/, ""),
    timeoutMs: secondsToMs(config, "timeout", 30),
  };
}

export function messageText(s: SlackSettings, payload: Row): string {
  if (!s.template.trim()) return JSON.stringify(payload);
  return renderTemplate(s.template, { ...payload, payload });
}

function post(s: SlackSettings, url: string, body: unknown, signal?: AbortSignal): Promise<HttpExchange> {
  return sendHttp({
    url,
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(s.mode === "bot_token" ? { authorization: `Bearer ${s.token}` } : {}),
    },
    body: JSON.stringify(body),
    timeoutMs: s.timeoutMs,
    signal,
  });
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(the webhook URL)";
  }
}

/** The Web API's `{ok:false, error}` inside a 200, as a failure sentence (undefined when ok). */
function apiFailure(exchange: HttpExchange): string | undefined {
  if (!isSuccess(exchange)) return undefined;
  try {
    const body = JSON.parse(exchange.bodyText) as { ok?: boolean; error?: string };
    return body.ok === false ? `Slack refused the message: ${body.error ?? "unknown error"}.` : undefined;
  } catch {
    return `Slack answered with something other than JSON: "${exchange.bodyText.slice(0, 120)}".`;
  }
}

async function sendOne(s: SlackSettings, record: WriteRecord, signal?: AbortSignal): Promise<WriteOutcome> {
  let text: string;
  try {
    text = messageText(s, record.payload);
  } catch (err) {
    return { key: record.key, ok: false, error: err instanceof ConnectorError ? err.message : String(err), retryable: false };
  }
  if (s.mode === "webhook") {
    // The webhook URL is the credential: the log shows its origin only.
    return outcomeFromExchange(record.key, await post(s, s.webhookUrl, { text }, signal), undefined, `${safeOrigin(s.webhookUrl)}/${SECRET_MASK}`);
  }
  const exchange = await post(s, `${s.baseUrl}/chat.postMessage`, { channel: s.channel, text }, signal);
  const failure = apiFailure(exchange);
  const outcome = outcomeFromExchange(record.key, exchange, failure);
  // Slack may report rate limiting in the body as well as with a 429.
  if (failure?.includes("ratelimited")) outcome.retryable = true;
  return outcome;
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  const s = settings(config);
  // Slack allows about one message per second per channel: send one at a time.
  return mapLimit(records, 1, (r) => sendOne(s, r, options.signal));
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(slackDestinationDefinition, config, async () => {
    const s = settings(config);
    if (s.mode === "webhook") {
      // An empty message is refused with 400 no_text by a live webhook and 403/404 by a dead one.
      const exchange = await post(s, s.webhookUrl, {});
      if (exchange.failure) return { ok: false, details: describeExchange(exchange) };
      if (isSuccess(exchange) || /no_text|invalid_payload|missing_text/.test(exchange.bodyText)) {
        return { ok: true, details: "The Slack incoming webhook answered." };
      }
      return { ok: false, details: `The webhook refused the request: ${describeExchange(exchange)}` };
    }
    const exchange = await post(s, `${s.baseUrl}/auth.test`, {});
    if (!isSuccess(exchange)) return { ok: false, details: describeExchange(exchange) };
    const body = parseJsonBody(exchange) as { ok?: boolean; error?: string; team?: string; user?: string };
    if (!body.ok) return { ok: false, details: `Slack rejected the bot token: ${body.error ?? "unknown error"}.` };
    return { ok: true, details: `Connected to Slack workspace "${body.team ?? "?"}" as ${body.user ?? "the bot"}.` };
  });
}

async function discover(config: Row): Promise<Catalog> {
  const s = settings(config);
  return buildCatalog(
    [
      {
        name: "chat_message",
        action: "create",
        url: s.mode === "webhook" ? "incoming-webhook" : `${s.baseUrl}/chat.postMessage`,
        json_schema: { type: "object", additionalProperties: true },
        batch_support: false,
        batch_size: 1,
        request_method: "POST",
      },
    ],
    // The message template reads whatever fields the mapping produces.
    { request_rate_limit: 60, request_rate_limit_unit: "minute", request_rate_concurrency: 1, schema_mode: "schemaless" },
  );
}

export const slackDestination: DestinationConnector = {
  definition: slackDestinationDefinition,
  check,
  discover,
  write,
};
