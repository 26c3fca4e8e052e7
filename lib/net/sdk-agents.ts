// Node agents for a vendor SDK that sends its own HTTP (the AWS SDK's NodeHttpHandler): every new
// connection resolves its host through the outbound guard, so the SDK connects to exactly the
// addresses that were checked. An endpoint given as an IP literal never reaches a lookup: callers
// check it first with assertUrlAllowed.
import http from "node:http";
import https from "node:https";
import { guardedLookup } from "./policy";

export interface SdkAgentOptions {
  keepAlive?: boolean;
  maxSockets?: number;
}

/** The `httpAgent` and `httpsAgent` of an SDK request handler, both guarded. */
export function guardedSdkAgents(options: SdkAgentOptions = {}): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = guardedLookup();
  return { httpAgent: new http.Agent({ ...options, lookup }), httpsAgent: new https.Agent({ ...options, lookup }) };
}
