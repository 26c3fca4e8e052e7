// The application's own PostgreSQL (DATABASE_URL, embedded or not) must never be a connector's
// target: a source on it reads every tenant's users and secrets, a destination on it writes them.
// This module knows which (address, port, database) that is; net-policy refuses it at connect time,
// whatever the outbound allow-list says.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

interface AppDatabase {
  host: string;
  port: number;
  database: string;
}

/** DATABASE_URL as (host, port, database); undefined when unset or unparsable. */
function applicationDatabase(): AppDatabase | undefined {
  const raw = process.env.DATABASE_URL;
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    // `?host=/var/run/postgresql` (a socket) or no host at all: the database is on this machine.
    const host = decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, "$1") || url.searchParams.get("host") || "localhost";
    const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "postgres";
    return { host: host.toLowerCase(), port: Number(url.port || 5432), database };
  } catch {
    return undefined;
  }
}

const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", ""]);

/** Addresses by which a client on this machine reaches a server on this machine. */
function isThisMachine(address: string): boolean {
  const a = address.replace(/^::ffff:/i, "").toLowerCase();
  if (a.startsWith("127.") || a === "::1" || a === "0.0.0.0" || a === "::") return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address.toLowerCase() === a));
}

let resolved: { host: string; addresses: Promise<string[]> } | undefined;

/** The addresses of the application database's host (cached per host name). */
function appAddresses(host: string): Promise<string[]> {
  if (resolved?.host !== host) {
    const addresses =
      isIP(host) || LOCAL_NAMES.has(host) || host.startsWith("/")
        ? Promise.resolve([isIP(host) ? host : "127.0.0.1"])
        : lookup(host, { all: true }).then(
            (list) => list.map((a) => a.address),
            () => [],
          );
    resolved = { host, addresses };
  }
  return resolved.addresses;
}

function sameAddress(target: string, app: string): boolean {
  if (isThisMachine(app)) return isThisMachine(target);
  return target.replace(/^::ffff:/i, "").toLowerCase() === app.replace(/^::ffff:/i, "").toLowerCase();
}

/**
 * True when a connection to `address` (already resolved; `undefined` for a local socket) on `port`
 * for `database` would reach the application database. Database names compare case-insensitively:
 * refusing a near-miss costs nothing.
 */
export async function isApplicationDatabase(target: { address?: string; port?: number; database?: string }): Promise<boolean> {
  const app = applicationDatabase();
  if (!app || target.database === undefined) return false;
  if (target.database.toLowerCase() !== app.database.toLowerCase()) return false;
  const appAddressList = await appAddresses(app.host);
  if (target.address === undefined) return appAddressList.some(isThisMachine);
  if (target.port !== undefined && target.port !== app.port) return false;
  return appAddressList.some((a) => sameAddress(target.address as string, a));
}
