// The outbound guard, including DNS rebinding: a resolver injected into the guard plays a DNS server
// that answers a harmless address to the check and a forbidden one at connect time. Real sockets,
// real HTTP/PostgreSQL/MariaDB servers on this machine.
import type { LookupAddress } from "node:dns";
import { createServer, Socket, type AddressInfo, type Server } from "node:net";
import { TLSSocket } from "node:tls";
import pg from "pg";
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { mysqlPromise, connectionOptions, mariaSettings } from "../connectors/mariadb/connection";
import {
  assertHostAllowed,
  assertUrlAllowed,
  connectGuarded,
  guardedLookup,
  isMetadataAddress,
  isPrivateAddress,
  OutboundBlockedError,
  type Resolver,
} from "./policy";
import { clientConfig, pgSettings } from "../connectors/postgresql/connection";
import { fetch as undiciFetch } from "undici";
import { guardedDispatcher, sendHttp } from "./http";
import { startHttpServer } from "@/tests/support/connectors";

afterEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

/** A DNS server whose answers change between questions: `answers[i]` is the i-th answer (the last repeats). */
function rebinding(...answers: string[]): Resolver & { questions: string[] } {
  const questions: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    const address = answers[Math.min(questions.length, answers.length - 1)];
    questions.push(host);
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };
  return Object.assign(resolve, { questions });
}

/** A TCP server on 127.0.0.1 that counts the connections it accepts. */
async function tcpServer(): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Resolves on 'connect', rejects with the socket's error. */
function outcome(socket: Socket): Promise<"connected"> {
  return new Promise((resolve, reject) => {
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", reject);
  });
}

const lookupWith = (resolve: Resolver, host: string, options: { all?: boolean; family?: number }) =>
  new Promise<unknown>((done, fail) =>
    guardedLookup(resolve)(host, options, (err: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
      err ? fail(err) : done(options.all ? address : { address, family }),
    ),
  );

describe("net policy", () => {
  it("classifies addresses, including IPv4-mapped IPv6", () => {
    for (const a of ["10.1.2.3", "172.20.0.1", "192.168.1.1", "127.0.0.1", "169.254.1.1", "::1", "fd12::1", "fe80::1", "::ffff:10.0.0.1"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "172.32.0.1", "2606:4700::1111"]) expect(isPrivateAddress(a), a).toBe(false);
    expect(isMetadataAddress("169.254.169.254")).toBe(true);
    expect(isMetadataAddress("::ffff:169.254.169.254")).toBe(true);
    expect(isMetadataAddress("fd00:ec2::254")).toBe(true);
    // IPv6 forms that carry an IPv4 address a network may deliver to: judged as that address.
    for (const a of ["64:ff9b::a9fe:a9fe", "64:ff9b::169.254.169.254", "2002:a9fe:a9fe::1", "::169.254.169.254", "::ffff:0:a9fe:a9fe", "::FFFF:A9FE:A9FE"]) {
      expect(isMetadataAddress(a), a).toBe(true);
    }
    for (const a of ["64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "2002:c0a8:101::", "::7f00:1", "::10.1.2.3", "::ffff:0:7f00:1", "64:ff9b:1::8.8.8.8"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2001:db8::1"]) expect(isPrivateAddress(a), a).toBe(false);
  });

  it("judges IPv6 forms that carry an IPv4 address (mapped in hex, compatible, SIIT, NAT64) by that address", () => {
    for (const a of ["::ffff:7f00:1", "::7f00:1", "::127.0.0.1", "::ffff:0:7f00:1", "64:ff9b::a00:1", "64:ff9b::10.0.0.1", "64:ff9b:1::8.8.8.8"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["::a9fe:a9fe", "::ffff:0:a9fe:a9fe", "64:ff9b::a9fe:a9fe", "64:ff9b::169.254.169.254"]) expect(isMetadataAddress(a), a).toBe(true);
    // A DNS64 resolver's answer for a public IPv4-only name stays allowed.
    for (const a of ["64:ff9b::808:808", "::ffff:808:808", "2606:4700::1111", "2001:db8::7f00:1"]) expect(isPrivateAddress(a), a).toBe(false);
    for (const u of ["http://[::169.254.169.254]/", "http://[::ffff:0:a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/"]) {
      expect(() => assertUrlAllowed(u), u).toThrow(OutboundBlockedError);
    }
  });

  it("always refuses metadata endpoints, by address or by name", async () => {
    await expect(assertHostAllowed("169.254.169.254")).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(assertHostAllowed("[fd00:ec2::254]")).rejects.toThrow(/metadata/);
    await expect(assertHostAllowed("metadata.google.internal.")).rejects.toThrow(/metadata/);
    expect(() => assertUrlAllowed("http://169.254.169.254/latest/meta-data/")).toThrow(/metadata/);
    expect(() => assertUrlAllowed("http://metadata.google.internal/")).toThrow(/metadata/);
  });

  it("refuses private targets unless OUTBOUND_ALLOW_PRIVATE allows them, after resolving the name", async () => {
    await expect(assertHostAllowed("localhost")).resolves.toBeUndefined();
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    await expect(assertHostAllowed("localhost")).rejects.toThrow(/private, loopback or link-local addresses \(localhost is/);
    await expect(assertHostAllowed("10.0.0.5")).rejects.toThrow(OutboundBlockedError);
    expect(() => assertUrlAllowed("http://10.0.0.5/")).toThrow(OutboundBlockedError);
  });

  it("refuses loopback and private targets when OUTBOUND_ALLOW_PRIVATE is not set at all", async () => {
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    await expect(assertHostAllowed("127.0.0.1")).rejects.toThrow(/OUTBOUND_ALLOW_PRIVATE/);
    await expect(assertHostAllowed("localhost")).rejects.toThrow(OutboundBlockedError);
    expect(() => assertUrlAllowed("http://192.168.1.1/")).toThrow(OutboundBlockedError);
    await expect(assertHostAllowed("203.0.113.7")).resolves.toBeUndefined();
  });

  it("OUTBOUND_ALLOW_PRIVATE takes addresses and CIDR ranges, or * for all, and names a bad entry", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "10.0.0.0/8, fd12::1";
    await expect(assertHostAllowed("10.1.2.3")).resolves.toBeUndefined();
    await expect(assertHostAllowed("[fd12::1]")).resolves.toBeUndefined();
    await expect(assertHostAllowed("192.168.1.1")).rejects.toThrow(/OUTBOUND_ALLOW_PRIVATE/);
    await expect(assertHostAllowed("127.0.0.1")).rejects.toBeInstanceOf(OutboundBlockedError);
    process.env.OUTBOUND_ALLOW_PRIVATE = "*";
    await expect(assertHostAllowed("192.168.1.1")).resolves.toBeUndefined();
    await expect(assertHostAllowed("169.254.169.254")).rejects.toThrow(/metadata/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "10.0.0.0/33";
    await expect(assertHostAllowed("192.168.1.1")).rejects.toThrow(/OUTBOUND_ALLOW_PRIVATE has an entry "10.0.0.0\/33"/);
  });

  it("refuses URLs whose IPv6 literal carries a private or metadata IPv4 address", () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    for (const url of ["http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "http://[2002:7f00:1::]:5432/", "http://[::127.0.0.1]/", "http://[::ffff:0:a00:1]/"]) {
      expect(() => assertUrlAllowed(url), url).toThrow(OutboundBlockedError);
    }
    expect(assertUrlAllowed("http://[64:ff9b::808:808]/").hostname).toBe("[64:ff9b::808:808]");
  });

  it("accepts only http and https URLs", () => {
    expect(() => assertUrlAllowed("file:///etc/passwd")).toThrow(/Only http and https/);
    expect(() => assertUrlAllowed("not a url")).toThrow(/not a valid URL/);
  });

  it("guardedLookup answers in both lookup forms, by family, and passes DNS errors through", async () => {
    const dual: Resolver = async () => [
      { address: "2001:db8::1", family: 6 },
      { address: "203.0.113.7", family: 4 },
    ];
    expect(await lookupWith(dual, "dual.test", { all: true })).toEqual([
      { address: "2001:db8::1", family: 6 },
      { address: "203.0.113.7", family: 4 },
    ]);
    expect(await lookupWith(dual, "dual.test", { family: 4 })).toEqual({ address: "203.0.113.7", family: 4 });
    const missing: Resolver = async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    await expect(lookupWith(missing, "nowhere.test", {})).rejects.toMatchObject({ code: "ENOTFOUND" });
    // One forbidden address among allowed ones refuses the name (the socket could pick any of them).
    const mixed: Resolver = async () => [
      { address: "203.0.113.7", family: 4 },
      { address: "169.254.169.254", family: 4 },
    ];
    await expect(lookupWith(mixed, "mixed.test", { all: true })).rejects.toThrow(/metadata/);
  });
});

describe("DNS rebinding: the address connected to is the address checked", () => {
  let tcp: Awaited<ReturnType<typeof tcpServer>>;
  beforeAll(async () => {
    tcp = await tcpServer();
  });
  afterAll(() => tcp.close());

  it("a name that passes the check but resolves to a forbidden address at connect time is refused (sockets: pg, mysql2)", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const dns = rebinding("203.0.113.7", "127.0.0.1");
    // The old flow: check the name (allowed), then let the client resolve it again.
    await expect(assertHostAllowed("rebind.test", dns)).resolves.toBeUndefined();
    const before = tcp.accepted();
    const socket = connectGuarded(new Socket(), { host: "rebind.test", port: tcp.port }, dns);
    await expect(outcome(socket)).rejects.toThrow(/private, loopback or link-local addresses \(rebind\.test is 127\.0\.0\.1\)/);
    expect(dns.questions).toEqual(["rebind.test", "rebind.test"]);
    expect(tcp.accepted()).toBe(before);
  });

  it("connects to exactly the address the guard resolved and allowed", async () => {
    const dns = rebinding("127.0.0.1");
    const before = tcp.accepted();
    // "rebind.test" exists in no DNS: reaching the server proves the socket used the guard's answer.
    await expect(outcome(connectGuarded(new Socket(), { host: "rebind.test", port: tcp.port }, dns))).resolves.toBe("connected");
    await expect.poll(() => tcp.accepted()).toBe(before + 1);
  });

  it("refuses IP literals and, without OUTBOUND_ALLOW_PRIVATE, local sockets without any lookup", async () => {
    const dns = rebinding("203.0.113.7");
    await expect(outcome(connectGuarded(new Socket(), { host: "169.254.169.254", port: 80 }, dns))).rejects.toThrow(/metadata/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    await expect(outcome(connectGuarded(new Socket(), { host: "127.0.0.1", port: tcp.port }, dns))).rejects.toThrow(OutboundBlockedError);
    await expect(outcome(connectGuarded(new Socket(), { path: "/var/run/postgresql/.s.PGSQL.5432" }, dns))).rejects.toThrow(
      /local sockets/,
    );
    expect(dns.questions).toEqual([]);
  });

  it("fetch through the guarded dispatcher: a rebound name is refused at connect time, the server sees nothing", async () => {
    const http = await startHttpServer();
    const port = new URL(http.url).port;
    try {
      process.env.OUTBOUND_ALLOW_PRIVATE = "";
      const dns = rebinding("203.0.113.7", "127.0.0.1");
      await expect(assertHostAllowed("rebind.test", dns)).resolves.toBeUndefined();
      const dispatcher = guardedDispatcher(dns);
      const init = { dispatcher };
      const failure = await undiciFetch(`http://rebind.test:${port}/`, init).then(
        () => undefined,
        (err: Error) => err,
      );
      expect((failure?.cause as Error | undefined)?.message).toMatch(/rebind\.test is 127\.0\.0\.1/);
      expect(failure?.cause).toBeInstanceOf(OutboundBlockedError);
      expect(http.requests).toHaveLength(0);

      // The same dispatcher reaches the server when the policy allows the address it resolved.
      process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
      const ok = await undiciFetch(`http://rebind.test:${port}/hello`, init);
      expect(ok.status).toBe(200);
      await ok.text();
      expect(http.requests.map((r) => [r.url, r.headers.host])).toEqual([["/hello", `rebind.test:${port}`]]);
      await dispatcher.close();
    } finally {
      await http.close();
    }
  });

  it("sendHttp reports a name refused at connect time as blocked (not retried)", async () => {
    const http = await startHttpServer();
    try {
      process.env.OUTBOUND_ALLOW_PRIVATE = "";
      const exchange = await sendHttp({ url: `http://localhost:${new URL(http.url).port}/`, method: "GET", timeoutMs: 5000 });
      expect(exchange).toMatchObject({ failure: "blocked", status: 0 });
      expect(exchange.error).toMatch(/private, loopback or link-local addresses \(localhost is/);
      expect(http.requests).toHaveLength(0);
    } finally {
      await http.close();
    }
  });
});

describe("database drivers connect through the guard", () => {
  const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const pgConfig = (host: string, extra: Record<string, unknown> = {}) =>
    pgSettings({
      host,
      port: Number(pgUrl.port || 5432),
      database: pgUrl.pathname.slice(1) || "postgres",
      credentials: { username: decodeURIComponent(pgUrl.username), password: decodeURIComponent(pgUrl.password) },
      connect_timeout: 5,
      ...extra,
    });

  it("pg: a name is resolved and checked by the guard (no check before connect needed)", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const refused = new pg.Client(clientConfig(pgConfig("localhost")));
    await expect(refused.connect()).rejects.toThrow(/private, loopback or link-local addresses \(localhost is/);
    await expect(new pg.Client(clientConfig(pgConfig("/var/run/postgresql"))).connect()).rejects.toThrow(/local sockets/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    const client = new pg.Client(clientConfig(pgConfig("localhost")));
    await client.connect();
    try {
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("the application's own database is refused whatever the allow-list (pg and mysql2); its server's other databases are not", async () => {
    const previous = process.env.DATABASE_URL;
    const appDatabase = pgUrl.pathname.slice(1) || "postgres";
    process.env.OUTBOUND_ALLOW_PRIVATE = "*";
    process.env.DATABASE_URL = `postgresql://app:secret@localhost:${pgUrl.port || 5432}/${appDatabase}`;
    try {
      const sameServer = ["127.0.0.1", "localhost", "127.0.0.2", "0.0.0.0", "::ffff:7f00:1", "::ffff:127.0.0.1"].map((host) => pgConfig(host));
      for (const target of [...sameServer, pgConfig("127.0.0.1", { database: appDatabase.toUpperCase() })]) {
        await expect(new pg.Client(clientConfig(target)).connect(), JSON.stringify(target)).rejects.toThrow(/own application database/);
      }
      await expect(new pg.Client(clientConfig(pgConfig("/var/run/postgresql"))).connect()).rejects.toThrow(/own application database/);
      // Any port: a pooler or a second listener reaches the same server.
      await expect(assertHostAllowed("localhost", undefined, { database: appDatabase })).rejects.toThrow(/own application database/);
      await expect(new pg.Client(clientConfig(pgConfig("127.0.0.1", { port: 6432 }))).connect()).rejects.toThrow(/own application database/);
      const maria = mariaSettings({ host: "127.0.0.1", port: Number(pgUrl.port || 5432), database: appDatabase, username: "x", password: "y" });
      await expect(mysqlPromise.createConnection(connectionOptions(maria))).rejects.toThrow(/own application database/);
      // Another database of the same server, or the same name on another host, is not the application's.
      const other = new pg.Client(clientConfig(pgConfig("127.0.0.1", { database: appDatabase === "test" ? "postgres" : "test" })));
      await other.connect();
      await other.end();
      await expect(assertHostAllowed("203.0.113.7", undefined, { database: appDatabase })).resolves.toBeUndefined();
      // An application host that cannot be resolved: its database name is refused everywhere.
      process.env.DATABASE_URL = `postgresql://app:secret@db.invalid:5432/${appDatabase}`;
      await expect(assertHostAllowed("203.0.113.7", undefined, { database: appDatabase })).rejects.toThrow(/own application database/);
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
  });

  it("pg over TLS: the socket goes to the checked address, TLS still names the host (SNI)", async () => {
    const names: string[] = [];
    // Answers PostgreSQL's SSLRequest with 'S', then records the TLS client hello's server name.
    const server = createServer((socket) => {
      socket.once("data", () => {
        socket.write("S");
        const tls = new TLSSocket(socket, {
          isServer: true,
          SNICallback: (name, done) => {
            names.push(name);
            done(new Error("enough"), undefined);
          },
        });
        tls.on("error", () => socket.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const client = new pg.Client(clientConfig({ ...pgConfig("localhost"), port, sslMode: "require" }));
      await expect(client.connect()).rejects.toThrow();
      expect(names).toEqual(["localhost"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const mariaUrl = process.env.MARIADB_URL ? new URL(process.env.MARIADB_URL) : undefined;
  it.skipIf(!mariaUrl)("mysql2: a name is resolved and checked by the guard (MARIADB_URL)", async () => {
    const settings = mariaSettings({
      host: "localhost",
      port: Number(mariaUrl!.port || 3306),
      username: decodeURIComponent(mariaUrl!.username),
      password: decodeURIComponent(mariaUrl!.password),
      database: mariaUrl!.pathname.slice(1),
      connect_timeout: 5,
    });
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    await expect(mysqlPromise.createConnection(connectionOptions(settings))).rejects.toThrow(
      /private, loopback or link-local addresses \(localhost is/,
    );
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    const conn = await mysqlPromise.createConnection(connectionOptions(settings));
    try {
      const [rows] = await conn.query("SELECT 1 AS one");
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await conn.end();
    }
  });
});
