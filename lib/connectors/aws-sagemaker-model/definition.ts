// The AwsSagemakerModel source's definition: the reference's settings unchanged (access_key,
// secret_access_key, region, endpoint_name, request_format, response_format); session_token,
// endpoint and the kit's limits are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";
import { awsProperties } from "../model-kit/aws-spec";

export const awsSagemakerModelSourceDefinition: ConnectorDefinition = {
  name: "AwsSagemakerModel",
  title: "Amazon SageMaker endpoint",
  connectorType: "source",
  category: "AI Model",
  subCategory: "AI_ML Service",
  icon: "/icons/aws-sagemaker-model.svg",
  documentationUrl: "https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html",
  streamType: "user_defined",
  supportsQuery: false,
  // Requests are signed for the region's endpoint; the key's use is not carried to another one.
  secretTargetFields: ["endpoint", "region"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Amazon SageMaker endpoint",
    type: "object",
    required: ["access_key", "secret_access_key", "region", "endpoint_name", "request_format", "response_format"],
    properties: {
      ...awsProperties("Amazon SageMaker (sagemaker:InvokeEndpoint)", "https://runtime.sagemaker.<region>.amazonaws.com"),
      endpoint_name: {
        type: "string",
        title: "Endpoint name",
        description: "The SageMaker inference endpoint's name.",
        pattern: "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$",
        order: 3,
      },
      ...sharedModelProperties({ streaming: false, order: 4 }),
    },
  },
};
