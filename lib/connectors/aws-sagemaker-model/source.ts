// AwsSagemakerModel source: one InvokeEndpoint call per input row through
// @aws-sdk/client-sagemaker-runtime (SigV4, retries of throttling and 5xx honouring Retry-After),
// the body being request_format rendered for the row as JSON. A ModelError (the container refused or
// failed on this input) is the row's; anything else stops the read.
import { InvokeEndpointCommand, SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import type { Row } from "../types";
import { stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { renderRequest, sampleInput } from "../model-kit/formats";
import { awsCall, awsClientOptions, awsSettings, jsonAnswer, type AwsSettings } from "../model-kit/aws";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { replyText } from "../model-kit/reply-text";
import { awsSagemakerModelSourceDefinition } from "./definition";

interface SagemakerSettings extends KitSettings {
  aws: AwsSettings;
  endpointName: string;
}

function settings(config: Row): SagemakerSettings {
  const endpointName = stringField(config, "endpoint_name").trim();
  if (!/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/.test(endpointName)) throw new ConnectorError(`"endpoint_name" must be a SageMaker endpoint's name (letters, digits and dashes).`);
  return { ...kitSettings(config), aws: awsSettings(config), endpointName };
}

const clients = new WeakMap<SagemakerSettings, SageMakerRuntimeClient>();
function client(s: SagemakerSettings): SageMakerRuntimeClient {
  let c = clients.get(s);
  if (!c) clients.set(s, (c = new SageMakerRuntimeClient(awsClientOptions(s.aws, s))));
  return c;
}

async function predict(s: SagemakerSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const command = new InvokeEndpointCommand({
    EndpointName: s.endpointName,
    ContentType: "application/json",
    Accept: "application/json",
    Body: new TextEncoder().encode(JSON.stringify(body)),
  });
  const answer = await awsCall("Amazon SageMaker", s.aws, s, body, () => client(s).send(command, { abortSignal: signal }), signal);
  return jsonAnswer("Amazon SageMaker", answer.Body);
}

/** Text-generation containers (Hugging Face TGI, JumpStart) answer [{"generated_text": …}] or {"generated_text": …}. */
function completion(answer: unknown): string | undefined {
  const first = Array.isArray(answer) ? (answer[0] as Row | undefined) : (answer as Row | undefined);
  const text = first?.generated_text;
  return typeof text === "string" ? text : replyText(answer);
}

async function check(s: SagemakerSettings, signal?: AbortSignal): Promise<string> {
  await predict({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, renderRequest(s.requestTemplate, sampleInput(s.requestTemplate)), signal);
  return `Connected to Amazon SageMaker in ${s.aws.region}: the endpoint "${s.endpointName}" answered a sample request.`;
}

export const awsSagemakerModelSource = makeModelSource<SagemakerSettings>({
  definition: awsSagemakerModelSourceDefinition,
  settings,
  predict,
  completion,
  check,
  endpoint: (s) => `${s.aws.endpoint ?? `https://runtime.sagemaker.${s.aws.region}.amazonaws.com`}/endpoints/${s.endpointName}/invocations`,
});
