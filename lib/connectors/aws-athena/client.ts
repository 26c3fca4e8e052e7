// The Athena client: @aws-sdk/client-athena (SigV4 signing, the AWS JSON 1.1 protocol, retries of
// ThrottlingException/TooManyRequestsException with backoff), with its HTTP layer replaced by a
// NodeHttpHandler whose agents resolve every host through our outbound guard (guardedLookup), so a
// connection goes to exactly the addresses that were checked, and whose answers are bounded in size
// and in time (bounded-handler.ts). An endpoint given as an IP literal
// never reaches a lookup, so it is checked here before the client exists.
import { AthenaClient } from "@aws-sdk/client-athena";
import { assertUrlAllowed } from "@/lib/net/policy";
import { guardedSdkAgents } from "@/lib/net/sdk-agents";
import { BoundedHttpHandler } from "./bounded-handler";
import type { AthenaSettings } from "./definition";

const CONNECT_TIMEOUT_MS = 10_000;
/** One API call (not the query: that is polled); Athena answers each within seconds. */
const REQUEST_TIMEOUT_MS = 60_000;

export function athenaClient(s: AthenaSettings): AthenaClient {
  if (s.endpoint) assertUrlAllowed(s.endpoint);
  return new AthenaClient({
    region: s.region,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    maxAttempts: 5,
    requestHandler: new BoundedHttpHandler({
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      ...guardedSdkAgents({ keepAlive: true, maxSockets: 4 }),
    }),
  });
}
