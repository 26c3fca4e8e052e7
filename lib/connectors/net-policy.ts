// Outbound guard for every connector that opens a connection on a user's behalf. Cloud metadata
// endpoints are always refused (they hand out credentials); private, loopback and link-local
// targets only when OUTBOUND_BLOCK_PRIVATE=1, since self-hosted installs usually sync to their LAN.
// Residual risk: the name is resolved here and again by the client, so DNS rebinding between the
// two lookups is not prevented.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { withTimeout } from "./shared/batching";
import { ConnectorError } from "./shared/errors";

const LOOKUP_TIMEOUT_MS = 5000;

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);
const METADATA_ADDRESSES = new BlockList();
METADATA_ADDRESSES.addAddress("169.254.169.254", "ipv4");
METADATA_ADDRESSES.addAddress("169.254.170.2", "ipv4"); // ECS task metadata
METADATA_ADDRESSES.addAddress("fd00:ec2::254", "ipv6");

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  PRIVATE.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  PRIVATE.addSubnet(net, prefix, "ipv6");
}

export class OutboundBlockedError extends ConnectorError {
  constructor(message: string) {
    super(message, "outbound_blocked");
    this.name = "OutboundBlockedError";
  }
}

/** `::ffff:10.0.0.1` is IPv4 in disguise: judge it as IPv4. */
function normalizeAddress(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

export function isMetadataAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return METADATA_ADDRESSES.check(a.address, a.family);
}

export function isPrivateAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return PRIVATE.check(a.address, a.family);
}

function blockPrivate(): boolean {
  return process.env.OUTBOUND_BLOCK_PRIVATE === "1";
}

/** Throws OutboundBlockedError when the host may not be contacted. Unresolvable names pass: the client reports them. */
export async function assertHostAllowed(rawHost: string): Promise<void> {
  const host = rawHost.trim().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
  if (METADATA_HOSTS.has(host)) throw new OutboundBlockedError(`Connections to ${host} (a cloud metadata service) are not allowed.`);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      // A resolver that hangs must not hang the caller: give up and let the client report it.
      const found = await withTimeout(lookup(host, { all: true, verbatim: true }), LOOKUP_TIMEOUT_MS, () => new Error("lookup timed out"));
      addresses = found.map((a) => a.address);
    } catch {
      return;
    }
  }
  for (const address of addresses) {
    if (isMetadataAddress(address)) {
      throw new OutboundBlockedError(`Connections to ${address} (a cloud metadata service) are not allowed.`);
    }
    if (blockPrivate() && isPrivateAddress(address)) {
      throw new OutboundBlockedError(
        `Connections to private, loopback or link-local addresses (${host} is ${address}) are not allowed on this server.`,
      );
    }
  }
}

/** Checks the scheme (http/https only) and the host of an outbound URL. */
export async function assertUrlAllowed(rawUrl: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConnectorError(`"${rawUrl}" is not a valid URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundBlockedError(`Only http and https URLs are allowed, not ${url.protocol.replace(":", "")}.`);
  }
  await assertHostAllowed(url.hostname);
  return url;
}
