// The WatsonxAi source's definition: the reference's settings unchanged (api_key, is_stream, region,
// deployment_id, config.timeout, request_format, response_format, model_type); api_url, iam_url and
// the kit's limits are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";
import { IBM_IAM_TOKEN_URL } from "../watsonx-data/config";

export const MODEL_TYPES = ["Machine learning model", "Prompt template"] as const;

export const watsonxAiSourceDefinition: ConnectorDefinition = {
  name: "WatsonxAi",
  title: "IBM watsonx.ai deployment",
  connectorType: "source",
  category: "AI Model",
  subCategory: "AI_ML Service",
  icon: "/icons/watsonx-ai.svg",
  documentationUrl: "https://cloud.ibm.com/apidocs/watsonx-ai",
  streamType: "user_defined",
  supportsQuery: false,
  // The API key goes to IAM; the token it buys goes to the API, named by the region.
  secretTargetFields: ["region", "api_url", "iam_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "IBM watsonx.ai deployment",
    type: "object",
    required: ["api_key", "region", "deployment_id", "request_format", "response_format"],
    properties: {
      api_key: {
        type: "string",
        title: "API key",
        description: "An IBM Cloud API key, exchanged at IAM for a bearer token. Stored encrypted and masked when shown.",
        secret: true,
        multiwoven_secret: true,
        order: 0,
      },
      region: {
        type: "string",
        title: "Region",
        description: "The IBM Cloud region of the deployment space, e.g. us-south, eu-de, jp-tok.",
        pattern: "^[a-z0-9][a-z0-9-]*$",
        order: 1,
      },
      deployment_id: {
        type: "string",
        title: "Deployment ID",
        description: "The deployment's id (or its serving name). Stored encrypted and masked when shown, as the reference does.",
        secret: true,
        multiwoven_secret: true,
        order: 2,
      },
      model_type: {
        type: "string",
        title: "Deployment type",
        description:
          "Machine learning model: the deployment's predictions endpoint (input_data in, predictions out). Prompt template: its text generation endpoint (generated_text out; streams with is_stream).",
        enum: [...MODEL_TYPES],
        default: MODEL_TYPES[0],
        order: 3,
      },
      api_url: {
        type: "string",
        title: "API URL",
        description: "Overrides https://<region>.ml.cloud.ibm.com; only for a private endpoint or a test emulator.",
        format: "uri",
        pattern: "^https?://",
        order: 4,
      },
      iam_url: {
        type: "string",
        title: "IAM token URL",
        description: "Where the API key is exchanged for a token.",
        format: "uri",
        pattern: "^https?://",
        default: IBM_IAM_TOKEN_URL,
        order: 5,
      },
      ...sharedModelProperties({ streaming: true, order: 6 }),
    },
  },
};
