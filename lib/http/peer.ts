// The socket peer of a request, carried from the HTTP server (scripts/start.ts) to route handlers,
// which only see headers. The server overwrites `x-datasync-peer` on every request with a per-process
// random token and the peer address, so a client can neither forge nor pass one through: a header
// without this process's token (e.g. under a server that does not stamp it) counts as no peer.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export const PEER_HEADER = "x-datasync-peer";
const TOKEN = Symbol.for("datasync.peer-token");

/** Shared through globalThis: the server and Next's compiled route bundles are one process, two module graphs. */
function token(): string {
  const holder = globalThis as { [TOKEN]?: string };
  return (holder[TOKEN] ??= randomBytes(18).toString("base64url"));
}

/** Server side: replaces whatever the client sent with this process's stamp of the real peer. */
export function stampPeer(headers: IncomingHttpHeaders, remoteAddress: string | undefined): void {
  headers[PEER_HEADER] = `${token()} ${remoteAddress ?? ""}`;
}

/** Route side: the socket peer the server stamped, or null when the header is absent or not ours. */
export function socketPeer(headers: Headers): string | null {
  const value = headers.get(PEER_HEADER);
  const holder = globalThis as { [TOKEN]?: string };
  if (!value || !holder[TOKEN]) return null;
  const [given, address] = value.split(" ");
  const expected = Buffer.from(holder[TOKEN]);
  const actual = Buffer.from(given ?? "");
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return address || null;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string | null | undefined): boolean {
  if (!address) return false;
  const plain = address.replace(/^::ffff:/i, "");
  return plain === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}
