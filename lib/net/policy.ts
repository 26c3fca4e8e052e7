// Outbound guard for every connector that opens a connection on a user's behalf. Cloud metadata
// endpoints and the application's own database are always refused; private, loopback and
// link-local targets too, except the addresses the operator lists in OUTBOUND_ALLOW_PRIVATE (a
// tenant must not reach the services beside the server, e.g. its Redis or an admin port).
// The check runs inside the socket's own DNS lookup (guardedLookup/connectGuarded), so a client
// connects to exactly the addresses that were checked: a name cannot resolve to an allowed address
// for the check and to a forbidden one for the connection (DNS rebinding).
import { lookup, type LookupAddress } from "node:dns";
import { isIP, BlockList, Socket, type LookupFunction, type SocketConnectOpts } from "node:net";
import { outboundAllowPrivate } from "@/lib/settings/outbound";
import { isApplicationDatabase } from "./app-database";
import { ConnectorError } from "./errors";

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
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits is the network's choice.
  ["64:ff9b:1::", 48],
] as const) {
  PRIVATE.addSubnet(net, prefix, "ipv6");
}

export class OutboundBlockedError extends ConnectorError {
  constructor(message: string) {
    super(message, "outbound_blocked");
    this.name = "OutboundBlockedError";
  }
}

/** Resolves a host name to every address it has. Injectable so tests can play a rebinding DNS server. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo, like the clients use), bounded so a hanging resolver cannot hang a check. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // EAI_AGAIN: the clients' error sentences already say "could not resolve the host name".
      reject(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host} (lookup timed out)`), { code: "EAI_AGAIN", hostname: host }));
    }, LOOKUP_TIMEOUT_MS);
    lookup(host, { all: true, verbatim: true }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses);
    });
  });

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad included); undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, "").toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const part = (p: string | undefined) => (p ? p.split(":").map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The IPv4 address an IPv6 address carries, where the network may deliver it to that IPv4 host:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64
 * (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::). `64:ff9b::a9fe:a9fe` through a NAT64 gateway is
 * the metadata service.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7] > 1)))) return v4(g[6], g[7]);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  return undefined;
}

/** An IPv6 address that carries an IPv4 one is judged as that IPv4 address. */
function normalizeAddress(address: string): { address: string; family: "ipv4" | "ipv6" } {
  if (isIP(address) !== 6) return { address, family: "ipv4" };
  const v4 = embeddedIpv4(address);
  return v4 ? { address: v4, family: "ipv4" } : { address, family: "ipv6" };
}

export function isMetadataAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return METADATA_ADDRESSES.check(a.address, a.family);
}

export function isPrivateAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return PRIVATE.check(a.address, a.family);
}

/** OUTBOUND_ALLOW_PRIVATE: `*` (every private address), or a comma list of addresses and CIDR ranges. */
type AllowList = "all" | BlockList;
let allowCache: { raw: string; list: AllowList } | undefined;

function parseAllowList(raw: string): AllowList {
  const list = new BlockList();
  for (const entry of raw.split(",").map((e) => e.trim()).filter(Boolean)) {
    if (entry === "*") return "all";
    const [address, prefix] = entry.replace(/^\[(.*)\](\/\d+)?$/, "$1$2").split("/");
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    if (!family || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= (family === 4 ? 32 : 128)))) {
      throw new OutboundBlockedError(
        `OUTBOUND_ALLOW_PRIVATE has an entry "${entry}" that is neither an IP address nor a CIDR range; the operator must fix it.`,
      );
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

function allowList(): AllowList {
  const raw = outboundAllowPrivate();
  if (allowCache?.raw !== raw) allowCache = { raw, list: parseAllowList(raw) };
  return allowCache.list;
}

/** True when the operator allowed this private/loopback/link-local address. */
export function isAllowedPrivate(address: string): boolean {
  const list = allowList();
  if (list === "all") return true;
  const a = normalizeAddress(address);
  return list.check(a.address, a.family);
}

function normalizeHost(rawHost: string): string {
  return rawHost.trim().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

/** Why `address` (what `host` resolved to) may not be contacted; undefined when it may. */
function refusal(address: string, host: string): OutboundBlockedError | undefined {
  if (isMetadataAddress(address)) return new OutboundBlockedError(`Connections to ${address} (a cloud metadata service) are not allowed.`);
  if (isPrivateAddress(address) && !isAllowedPrivate(address)) {
    return new OutboundBlockedError(
      `Connections to private, loopback or link-local addresses (${host} is ${address}) are not allowed on this server;` +
        ` its operator can allow them with OUTBOUND_ALLOW_PRIVATE.`,
    );
  }
  return undefined;
}

/** A database connection names the database it opens; the application's own is never a target. */
export interface DatabaseTarget {
  database?: string;
}

const appDatabaseRefusal = () =>
  new OutboundBlockedError("This server's own application database cannot be used as a source or destination.");

async function assertNotApplicationDatabase(address: string | undefined, target: DatabaseTarget | undefined): Promise<void> {
  if (target?.database === undefined) return;
  if (await isApplicationDatabase({ address, database: target.database })) throw appDatabaseRefusal();
}

/** Refusals that need no DNS: metadata names and IP literals. */
function literalRefusal(host: string): OutboundBlockedError | undefined {
  if (METADATA_HOSTS.has(host)) return new OutboundBlockedError(`Connections to ${host} (a cloud metadata service) are not allowed.`);
  return isIP(host) ? refusal(host, host) : undefined;
}

/** The addresses of `rawHost`, every one of them allowed; rejects with OutboundBlockedError, or the resolver's error. */
async function allowedAddresses(rawHost: string, resolve: Resolver, target?: DatabaseTarget): Promise<LookupAddress[]> {
  const host = normalizeHost(rawHost);
  const literal = literalRefusal(host);
  if (literal) throw literal;
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await resolve(host);
  for (const { address } of addresses) {
    const refused = refusal(address, host);
    if (refused) throw refused;
    await assertNotApplicationDatabase(address, target);
  }
  return addresses;
}

/**
 * Throws OutboundBlockedError when the host may not be contacted. Unresolvable names pass: the client
 * reports them. An early, clear answer only: the connection itself must still go through
 * guardedLookup/connectGuarded, which check again the addresses actually used.
 */
export async function assertHostAllowed(rawHost: string, resolve: Resolver = systemResolver, target?: DatabaseTarget): Promise<void> {
  try {
    await allowedAddresses(rawHost, resolve, target);
  } catch (err) {
    if (err instanceof OutboundBlockedError) throw err;
  }
}

/**
 * Checks the scheme (http/https only) and, without resolving it, the host of an outbound URL: names
 * are checked when the connection resolves them (guardedLookup).
 */
export function assertUrlAllowed(rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConnectorError(`"${rawUrl}" is not a valid URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundBlockedError(`Only http and https URLs are allowed, not ${url.protocol.replace(":", "")}.`);
  }
  const refused = literalRefusal(normalizeHost(url.hostname));
  if (refused) throw refused;
  return url;
}

/**
 * A `lookup` for net/tls sockets (and undici's connect options) that resolves the name once and
 * hands the socket only addresses that passed the policy; a refused name fails the connection with
 * OutboundBlockedError. IP literals never reach a lookup: check those with assertUrlAllowed or
 * connectGuarded.
 */
export function guardedLookup(resolve: Resolver = systemResolver, target?: DatabaseTarget): LookupFunction {
  return (hostname, options, callback) => {
    allowedAddresses(hostname, resolve, target).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
          callback(err, "", 0);
        } else if (options.all) {
          (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, usable);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

/**
 * Connects `socket` (new, unconnected) to host:port, or to a local socket `path`, through the
 * policy: names via guardedLookup, IP literals checked here; with a `database`, the application's
 * own database is refused too. A refused target destroys the socket with OutboundBlockedError,
 * which the driver reports like any connection error.
 */
export function connectGuarded(
  socket: Socket,
  target: ({ host: string; port: number } | { path: string }) & { database?: string },
  resolve: Resolver = systemResolver,
): Socket {
  const database: DatabaseTarget = { database: target.database };
  const check = async (): Promise<void> => {
    if ("path" in target) {
      // A Unix socket is on this machine by definition: allowed only where loopback is.
      if (!isAllowedPrivate("127.0.0.1")) {
        throw new OutboundBlockedError(`Connections to local sockets (${target.path}) are not allowed on this server.`);
      }
      return assertNotApplicationDatabase(undefined, database);
    }
    const host = normalizeHost(target.host);
    const refused = literalRefusal(host);
    if (refused) throw refused;
    if (isIP(host)) await assertNotApplicationDatabase(host, database);
  };
  // The prototype's connect: pg replaces the instance's own with a function that calls this one.
  const connect = Socket.prototype.connect as (this: Socket, options: SocketConnectOpts) => Socket;
  check().then(
    () => {
      if ("path" in target) connect.call(socket, { path: target.path });
      else connect.call(socket, { host: target.host, port: target.port, lookup: guardedLookup(resolve, database) });
    },
    (err: unknown) => socket.destroy(err instanceof Error ? err : new Error(String(err))),
  );
  return socket;
}
