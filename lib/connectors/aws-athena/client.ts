// The Athena client: @aws-sdk/client-athena (SigV4 signing, the AWS JSON 1.1 protocol, retries of
// ThrottlingException/TooManyRequestsException with backoff), with its HTTP layer replaced by a
// NodeHttpHandler whose agents resolve every host through our outbound guard (guardedLookup), so a
// connection goes to exactly the addresses that were checked, and whose answers are bounded in size
// and in time (bounded-handler.ts). An endpoint given as an IP literal
// never reaches a lookup, so it is checked here before the client exists.
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { AthenaClient } from "@aws-sdk/client-athena";
import { assertUrlAllowed, guardedLookup } from "../net-policy";
import { BoundedHttpHandler } from "./bounded-handler";
import type { AthenaSettings } from "./definition";

const CONNECT_TIMEOUT_MS = 10_000;
/** One API call (not the query: that is polled); Athena answers each within seconds. */
const REQUEST_TIMEOUT_MS = 60_000;

export function athenaClient(s: AthenaSettings): AthenaClient {
  if (s.endpoint) assertUrlAllowed(s.endpoint);
  const lookup = guardedLookup();
  return new AthenaClient({
    region: s.region,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    maxAttempts: 5,
    requestHandler: new BoundedHttpHandler({
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 4, lookup }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 4, lookup }),
    }),
  });
}
