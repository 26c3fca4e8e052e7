// A private PostgreSQL with logical replication on (wal_level=logical), for live syncs' tests: the
// shared server on this machine runs wal_level=replica. The product's embedded PostgreSQL, on a free
// loopback port, in a temporary folder removed after the file.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import { freePort } from "./free-port";

export interface LogicalPostgres {
  /** A URL of a database on the server, created empty for this file. */
  url: string;
  /** The server's maintenance database (slots are per server: pg_replication_slots). */
  adminUrl: string;
}

/** Starts the server before the file's tests and stops it after; call at the top of the file. */
export function useLogicalPostgres(database = "live_source"): () => LogicalPostgres {
  let server: EmbeddedDatabase | undefined;
  let dir = "";
  let current: LogicalPostgres | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "ds-logical-pg-"));
    server = await startEmbeddedPostgres({
      dataDir: dir,
      port: await freePort(),
      settings: { wal_level: "logical", max_replication_slots: "10", max_wal_senders: "10", wal_sender_timeout: "10s" },
    });
    const admin = new URL(server.url);
    admin.pathname = "/postgres";
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${database}`);
    } finally {
      await client.end();
    }
    const url = new URL(server.url);
    url.pathname = `/${database}`;
    current = { url: url.toString(), adminUrl: admin.toString() };
  }, 180_000);
  afterAll(async () => {
    await server?.stop().catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });
  return () => {
    if (!current) throw new Error("The logical PostgreSQL has not started.");
    return current;
  };
}
