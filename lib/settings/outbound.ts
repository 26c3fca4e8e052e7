// Which private, loopback and link-local addresses connectors may reach (lib/net/policy.ts
// enforces it): OUTBOUND_ALLOW_PRIVATE, or, with DEMO=1 and nothing set, the host of the database
// the demo's connectors read and write (the one beside the application's).
import { isIP } from "node:net";
import { env } from "./env";
import { databaseUrl } from "./process-database";

/** The raw allow-list: a comma list of addresses and CIDR ranges, `*`, or "" for none. */
export function outboundAllowPrivate(): string {
  if (env.OUTBOUND_ALLOW_PRIVATE !== undefined) return env.OUTBOUND_ALLOW_PRIVATE;
  const url = env.DEMO ? databaseUrl() : undefined;
  if (!url) return "";
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(host) ? host : "127.0.0.1,::1";
}
