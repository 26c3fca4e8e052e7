// What the AWS model sources (Bedrock, SageMaker) share: the SDK's HTTP layer replaced by the bounded
// handler whose agents resolve every host through our outbound guard (as aws-athena/client.ts), an
// endpoint override checked before the client exists, the kit's spacing before each call, and the
// SDK's errors turned into sentences, split into "this row" (PredictionFailed) and "this connection".
// The SDK retries throttling (429 ThrottlingException…) and 5xx itself, honouring Retry-After.
import type { Row } from "../types";
import { assertUrlAllowed } from "@/lib/net/policy";
import { guardedSdkAgents } from "@/lib/net/sdk-agents";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError, errorMessage } from "../shared/errors";
import { BoundedHttpHandler } from "../aws-athena/bounded-handler";
import { budgetKey, spend } from "./budget";
import { estimateTokens } from "./formats";
import { PredictionFailed } from "./http";
import type { KitSettings } from "./settings";

const CONNECT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface AwsSettings {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  endpoint?: string;
}

export function awsSettings(config: Row): AwsSettings {
  const region = stringField(config, "region").trim();
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) throw new ConnectorError(`"region" must be an AWS region such as us-east-1.`);
  const endpoint = optionalString(config, "endpoint")?.trim().replace(/\/+$/, "");
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) throw new ConnectorError(`"endpoint" must be an http(s) URL.`);
  return {
    region,
    accessKeyId: stringField(config, "access_key").trim(),
    secretAccessKey: stringField(config, "secret_access_key"),
    sessionToken: optionalString(config, "session_token"),
    endpoint,
  };
}

/** The client options every AWS model client takes. */
export function awsClientOptions(aws: AwsSettings, s: KitSettings) {
  // An endpoint given as an IP literal never reaches a lookup: checked here.
  if (aws.endpoint) assertUrlAllowed(aws.endpoint);
  return {
    region: aws.region,
    credentials: { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey, ...(aws.sessionToken ? { sessionToken: aws.sessionToken } : {}) },
    ...(aws.endpoint ? { endpoint: aws.endpoint } : {}),
    maxAttempts: s.maxRetries + 1,
    requestHandler: new BoundedHttpHandler(
      {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        requestTimeout: s.timeoutMs,
        ...guardedSdkAgents({ keepAlive: true, maxSockets: 8 }),
      },
      { maxBytes: MAX_ANSWER_BYTES, deadlineMs: s.timeoutMs },
    ),
  };
}

/** Errors about the request itself (its body, the model's reaction to it): the row carries them. */
const ROW_ERRORS = new Set(["ValidationException", "ValidationError", "ModelError", "ModelErrorException", "ModelTimeoutException"]);

/** Runs one SDK call within the kit's budgets; its error becomes a sentence naming the service. */
export async function awsCall<T>(service: string, aws: AwsSettings, s: KitSettings, body: unknown, send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  await spend(budgetKey(service, aws.endpoint ?? aws.region, aws.accessKeyId), s, estimateTokens(body), signal);
  try {
    return await send();
  } catch (err) {
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.");
    if (err instanceof ConnectorError) throw err;
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number; attempts?: number }; cause?: unknown };
    const status = e.$metadata?.httpStatusCode;
    const attempts = e.$metadata?.attempts && e.$metadata.attempts > 1 ? ` (after ${e.$metadata.attempts} attempts)` : "";
    // The outbound guard refuses at lookup time: its sentence is the one to show.
    const blocked = [err, e.cause].find((x) => x instanceof Error && /not allowed on this server/.test(x.message));
    if (blocked) throw new ConnectorError(errorMessage(blocked), "outbound_blocked");
    const reason = (e.message ?? "").trim().slice(0, 300) || e.name || "no reason given";
    const sentence = `${service} answered ${e.name ?? "an error"}${status ? ` (HTTP ${status})` : ""}: ${reason}${attempts}`;
    if (e.name && ROW_ERRORS.has(e.name)) throw new PredictionFailed(sentence);
    throw new ConnectorError(sentence, status ? `http_${status}` : "network");
  }
}

/** The answer body (bytes) as JSON; text that is not JSON is the row's failure. */
export function jsonAnswer(service: string, bytes: Uint8Array | undefined): unknown {
  const text = bytes ? Buffer.from(bytes).toString("utf8") : "";
  try {
    return JSON.parse(text);
  } catch {
    throw new PredictionFailed(`${service} answered something that is not JSON: "${text.trim().slice(0, 120)}".`);
  }
}

