// The AWS credential fields of the Bedrock and SageMaker sources: the reference's access_key,
// secret_access_key and region; session_token and endpoint are our optional extras.
import type { JsonSchema } from "../types";

export function awsProperties(service: string, endpointExample: string): Record<string, JsonSchema> {
  return {
    access_key: { type: "string", title: "Access key ID", description: `An IAM access key id allowed to call ${service}.`, order: 0 },
    secret_access_key: {
      type: "string",
      title: "Secret access key",
      description: "The access key's secret; it signs requests (SigV4) and is never sent. Stored encrypted and masked when shown.",
      secret: true,
      multiwoven_secret: true,
      order: 1,
    },
    region: { type: "string", title: "Region", description: "The AWS region of the model, e.g. us-east-1.", order: 2 },
    session_token: {
      type: "string",
      title: "Session token",
      description: "For temporary credentials only. Stored encrypted and masked when shown.",
      secret: true,
      multiwoven_secret: true,
      order: 20,
    },
    endpoint: {
      type: "string",
      title: "Endpoint URL",
      description: `Overrides the region's ${service} endpoint (${endpointExample}); only for a VPC endpoint or a test emulator.`,
      format: "uri",
      pattern: "^https?://",
      order: 21,
    },
  };
}
