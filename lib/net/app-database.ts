// The application's own PostgreSQL (DATABASE_URL, embedded or not) must never be a connector's
// target: a source on it reads every tenant's users and secrets, a destination on it writes them.
// This module knows which (host, database) that is; net-policy refuses it at connect time, whatever
// the outbound allow-list says.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { databaseUrl } from "@/lib/settings/process-database";

interface AppDatabase {
  host: string;
  database: string;
}

/** The application database as (host, database); undefined when unknown or unparsable. */
function applicationDatabase(): AppDatabase | undefined {
  const raw = databaseUrl();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    // `?host=/var/run/postgresql` (a socket) or no host at all: the database is on this machine.
    const host = decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, "$1") || url.searchParams.get("host") || "localhost";
    const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "postgres";
    return { host: host.toLowerCase(), database };
  } catch {
    return undefined;
  }
}

const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", ""]);
const RESOLVE_TTL_MS = 60_000;

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

/**
 * Matches an address however it is written: BlockList also matches IPv4-mapped IPv6 forms
 * (`::ffff:7f00:1` is 127.0.0.1), which a string comparison would miss.
 */
function matcher(addresses: string[], subnets: [string, number][] = []): (address: string) => boolean {
  const list = new BlockList();
  for (const a of addresses) if (isIP(a)) list.addAddress(a, family(a));
  for (const [net, prefix] of subnets) list.addSubnet(net, prefix, family(net));
  return (address) => {
    try {
      return list.check(address, family(address));
    } catch {
      return true; // not an address we can judge: treat it as the database's, to be safe
    }
  };
}

/** Addresses by which a client on this machine reaches a server on this machine. */
function isThisMachine(address: string): boolean {
  const interfaces = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, "")));
  return matcher([...interfaces, "0.0.0.0", "::", "::1"], [["127.0.0.0", 8]])(address);
}

let resolved: { host: string; at: number; addresses: Promise<string[] | undefined> } | undefined;

/** The addresses of the application database's host (cached a minute); undefined when it cannot be resolved. */
function appAddresses(host: string): Promise<string[] | undefined> {
  if (resolved?.host !== host || Date.now() - resolved.at > RESOLVE_TTL_MS) {
    const addresses =
      isIP(host) || LOCAL_NAMES.has(host) || host.startsWith("/")
        ? Promise.resolve([isIP(host) ? host : "127.0.0.1"])
        : lookup(host, { all: true }).then(
            (list) => list.map((a) => a.address),
            () => undefined,
          );
    resolved = { host, at: Date.now(), addresses };
  }
  return resolved.addresses;
}

/**
 * True when a connection to `address` (already resolved; `undefined` for a local socket) for
 * `database` could reach the application database: the same database name on the same host, on
 * any port (a pooler or a second listener reaches the same server). Names compare case-insensitively
 * and an application host that cannot be resolved counts as any host: refusing a near-miss costs
 * nothing, letting one through costs every tenant's data.
 */
export async function isApplicationDatabase(target: { address?: string; database?: string }): Promise<boolean> {
  const app = applicationDatabase();
  if (!app || target.database === undefined) return false;
  if (target.database.toLowerCase() !== app.database.toLowerCase()) return false;
  const appAddressList = await appAddresses(app.host);
  if (!appAddressList) return true;
  if (target.address === undefined) return appAddressList.some(isThisMachine);
  const address = target.address;
  return appAddressList.some((a) => (isThisMachine(a) ? isThisMachine(address) : matcher([a])(address)));
}
