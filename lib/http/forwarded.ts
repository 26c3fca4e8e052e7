// Forwarded headers (X-Forwarded-For/-Host/-Proto) are claims a client can make up. They are only
// believed with TRUST_PROXY=1, i.e. when the operator says a reverse proxy in front sets them;
// otherwise the HTTP server (scripts/start.ts) drops them and fills X-Forwarded-For from the socket.
import type { IncomingHttpHeaders } from "node:http";
import { env } from "@/lib/settings/env";
import { isLoopback, socketPeer } from "./peer";

/** TRUST_PROXY=1: a reverse proxy in front sets the forwarded headers. */
export const trustProxy = (): boolean => env.TRUST_PROXY;

const CLAIMS = [
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "forwarded",
  "x-real-ip",
] as const;

/** Server side, before Next: what the route handlers may believe about the client. */
export function sanitizeForwarded(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  trusted: boolean,
): void {
  if (!trusted) {
    for (const name of CLAIMS) delete headers[name];
    headers["x-forwarded-for"] = remoteAddress ?? "";
  } else if (!headers["x-forwarded-for"]) {
    headers["x-forwarded-for"] = remoteAddress ?? "";
  }
}

/**
 * The client address for per-address limits: the last X-Forwarded-For hop, i.e. the address the
 * nearest proxy (or our own server, which fills the header from the socket) saw. Behind a proxy
 * that appends the header this cannot be forged.
 */
export function clientAddress(headers: Headers): string | null {
  const forwarded = headers.get("x-forwarded-for");
  const hops =
    forwarded
      ?.split(",")
      .map((h) => h.trim())
      .filter(Boolean) ?? [];
  const last = hops.at(-1) ?? headers.get("x-real-ip")?.trim();
  return last ? last.slice(0, 64) : null;
}

/**
 * A request from this machine: the socket peer (stamped by our server, unforgeable) is loopback,
 * and, when a proxy on this machine forwards for someone, the client it names is loopback too.
 */
export function isLocalRequest(headers: Headers): boolean {
  if (!isLoopback(socketPeer(headers))) return false;
  const client = clientAddress(headers);
  return client === null || isLoopback(client);
}
