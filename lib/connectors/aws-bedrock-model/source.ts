// AwsBedrockModel source: one InvokeModel call per input row through @aws-sdk/client-bedrock-runtime
// (SigV4, retries of ThrottlingException honouring Retry-After), the body being request_format
// rendered for the row in the model family's own format. Mistral's instruct models want the prompt
// wrapped in [INST] … [/INST]: a prompt not yet wrapped is.
import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import type { Row } from "../types";
import { optionalString, stringField } from "../shared/config";
import { renderRequest, sampleInput } from "../model-kit/formats";
import { awsCall, awsClientOptions, awsSettings, jsonAnswer, type AwsSettings } from "../model-kit/aws";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { replyText } from "../model-kit/reply-text";
import { awsBedrockModelSourceDefinition } from "./definition";

interface BedrockSettings extends KitSettings {
  aws: AwsSettings;
  /** The inference profile when there is one, else the model id. */
  modelId: string;
}

function settings(config: Row): BedrockSettings {
  return {
    ...kitSettings(config),
    aws: awsSettings(config),
    modelId: (optionalString(config, "inference_profile") ?? stringField(config, "model_id")).trim(),
  };
}

const clients = new WeakMap<BedrockSettings, BedrockRuntimeClient>();
function client(s: BedrockSettings): BedrockRuntimeClient {
  let c = clients.get(s);
  if (!c) clients.set(s, (c = new BedrockRuntimeClient(awsClientOptions(s.aws, s))));
  return c;
}

/** Mistral's instruct format, for a plain prompt. */
export function formatForModel(modelId: string, body: unknown): unknown {
  const prompt = (body as Row | null)?.prompt;
  if (!/mistral/i.test(modelId) || typeof prompt !== "string") return body;
  const wrapped = prompt.startsWith("<s>[INST]") && prompt.endsWith("[/INST]") ? prompt : `<s>[INST] ${prompt} [/INST]`;
  return { ...(body as Row), prompt: wrapped };
}

async function predict(s: BedrockSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const payload = formatForModel(s.modelId, body);
  const command = new InvokeModelCommand({
    modelId: s.modelId,
    contentType: "application/json",
    accept: "application/json",
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
  const answer = await awsCall("Amazon Bedrock", s.aws, s, payload, () => client(s).send(command, { abortSignal: signal }), signal);
  return jsonAnswer("Amazon Bedrock", answer.body);
}

async function check(s: BedrockSettings, signal?: AbortSignal): Promise<string> {
  // No cheaper call proves model access: a sample invocation, as the reference checks.
  await predict({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, renderRequest(s.requestTemplate, sampleInput(s.requestTemplate)), signal);
  return `Connected to Amazon Bedrock in ${s.aws.region}: ${s.modelId} answered a sample request.`;
}

export const awsBedrockModelSource = makeModelSource<BedrockSettings>({
  definition: awsBedrockModelSourceDefinition,
  settings,
  predict,
  completion: replyText,
  check,
  endpoint: (s) => `${s.aws.endpoint ?? `https://bedrock-runtime.${s.aws.region}.amazonaws.com`}/model/${encodeURIComponent(s.modelId)}/invoke`,
});
