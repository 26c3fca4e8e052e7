// The AwsBedrockModel source's definition: the reference's settings unchanged (access_key,
// secret_access_key, region, model_id, inference_profile, request_format, response_format);
// session_token, endpoint and the kit's limits are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";
import { awsProperties } from "../model-kit/aws-spec";

export const awsBedrockModelSourceDefinition: ConnectorDefinition = {
  name: "AwsBedrockModel",
  title: "Amazon Bedrock",
  connectorType: "source",
  category: "AI Model",
  subCategory: "LLM",
  icon: "/icons/aws-bedrock-model.svg",
  documentationUrl: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html",
  streamType: "user_defined",
  supportsQuery: false,
  // Requests are signed for the region's endpoint; the key's use is not carried to another one.
  secretTargetFields: ["endpoint", "region"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Amazon Bedrock",
    type: "object",
    required: ["access_key", "secret_access_key", "region", "model_id", "request_format", "response_format"],
    properties: {
      ...awsProperties("Amazon Bedrock (bedrock:InvokeModel)", "https://bedrock-runtime.<region>.amazonaws.com"),
      model_id: {
        type: "string",
        title: "Model ID",
        description: "The Bedrock model id, e.g. anthropic.claude-3-5-haiku-20241022-v1:0, amazon.titan-text-express-v1, mistral.mistral-7b-instruct-v0:2.",
        order: 3,
      },
      inference_profile: {
        type: "string",
        title: "Inference profile",
        description: "An inference profile id or ARN (e.g. us.anthropic.claude-3-5-haiku-20241022-v1:0); when set, it is invoked instead of the model id.",
        order: 4,
      },
      ...sharedModelProperties({ streaming: false, order: 5 }),
    },
  },
};
