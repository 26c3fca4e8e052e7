// The DatabricksModel source's definition: the reference's settings unchanged (databricks_host,
// token, endpoint, config.timeout, request_format, response_format); base_url and the kit's limits
// are our optional extras.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { sharedModelProperties } from "../model-kit/spec";

export const databricksModelSourceDefinition: ConnectorDefinition = {
  name: "DatabricksModel",
  title: "Databricks Model Serving",
  connectorType: "source",
  category: "AI Model",
  subCategory: "AI_ML Service",
  icon: "/icons/databricks-model.svg",
  documentationUrl: "https://docs.databricks.com/api/workspace/servingendpoints/query",
  streamType: "user_defined",
  supportsQuery: false,
  // The token goes to the workspace: a new host or API URL needs it entered again.
  secretTargetFields: ["databricks_host", "base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Databricks Model Serving",
    type: "object",
    required: ["databricks_host", "token", "endpoint", "request_format", "response_format"],
    properties: {
      databricks_host: {
        type: "string",
        title: "Workspace host",
        description: "The workspace's host name, e.g. dbc-a1b2c3d4-e5f6.cloud.databricks.com.",
        examples: ["dbc-a1b2c3d4-e5f6.cloud.databricks.com"],
        order: 0,
      },
      token: {
        type: "string",
        title: "Access token",
        description: "A personal access token (or a service principal's), sent as a Bearer token. Stored encrypted and masked when shown.",
        secret: true,
        multiwoven_secret: true,
        order: 1,
      },
      endpoint: {
        type: "string",
        title: "Serving endpoint",
        description: "The serving endpoint's name, e.g. databricks-meta-llama-3-3-70b-instruct or a custom model's endpoint.",
        examples: ["databricks-meta-llama-3-3-70b-instruct"],
        pattern: "^[A-Za-z0-9_.-]+$",
        order: 2,
      },
      base_url: {
        type: "string",
        title: "Workspace URL",
        description: "Overrides https://<databricks_host>; only for a proxy or a test emulator.",
        format: "uri",
        pattern: "^https?://",
        order: 3,
      },
      ...sharedModelProperties({
        streaming: false,
        requestDefault: '{"messages": [{"role": "user", "content": "{{ prompt }}"}], "max_tokens": 256}',
        order: 4,
      }),
    },
  },
};
