// The VertexModel source's definition: the reference's settings unchanged (project_id, endpoint_id,
// region, credentials_json: the service account's JSON key, request_format, response_format);
// vertex_method, api_base_url and the kit's limits are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema } from "../types";
import { sharedModelProperties } from "../model-kit/spec";
import { bigquerySpecification } from "../bigquery/definition";

export const VERTEX_METHODS = ["rawPredict", "predict", "generateContent"] as const;

export const vertexModelSourceDefinition: ConnectorDefinition = {
  name: "VertexModel",
  title: "Google Vertex AI",
  connectorType: "source",
  category: "AI Model",
  subCategory: "AI_ML Service",
  icon: "/icons/vertex-model.svg",
  documentationUrl: "https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.endpoints",
  streamType: "user_defined",
  supportsQuery: false,
  // The access token goes to the region's API (or api_base_url), the signed assertion to token_uri.
  secretTargetFields: ["region", "api_base_url", "credentials_json.token_uri"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Google Vertex AI",
    type: "object",
    required: ["project_id", "endpoint_id", "region", "credentials_json", "request_format", "response_format"],
    properties: {
      project_id: { type: "string", title: "Project ID", description: "The Google Cloud project of the endpoint.", order: 0 },
      endpoint_id: {
        type: "string",
        title: "Endpoint ID",
        description:
          "The numeric id of the Vertex AI endpoint the model is deployed to; or a publisher model such as publishers/google/models/gemini-2.0-flash (called with generateContent).",
        order: 1,
      },
      region: { type: "string", title: "Region", description: "The endpoint's region, e.g. us-central1 or europe-west4.", pattern: "^[a-z0-9-]+$", order: 2 },
      // The service account key as BigQuery's (the same Google key file, the same required members).
      credentials_json: {
        ...(bigquerySpecification.properties as Record<string, JsonSchema>).credentials_json,
        description: "The service account's JSON key file. It needs the Vertex AI User role (aiplatform.endpoints.predict).",
        order: 3,
      },
      vertex_method: {
        type: "string",
        title: "Method",
        description:
          "rawPredict (as the reference): request_format is the body the model's container takes. predict: {\"instances\": […], \"parameters\": {…}}. generateContent: Gemini's contents format. Publisher models always use generateContent.",
        enum: [...VERTEX_METHODS],
        default: "rawPredict",
        order: 4,
      },
      api_base_url: {
        type: "string",
        title: "API base URL",
        description: "Overrides https://<region>-aiplatform.googleapis.com; only for a private endpoint or a test emulator.",
        format: "uri",
        pattern: "^https?://",
        order: 5,
      },
      ...sharedModelProperties({ streaming: false, order: 6 }),
    },
  },
};
