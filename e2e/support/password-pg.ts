// A PostgreSQL that checks passwords (scram-sha-256), for specs about credentials: the shared test
// server trusts every local connection, so a wrong password would pass there.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { freePort } from "../../tests/support/free-port";
import { startEmbeddedPostgres } from "../../lib/db/embedded";

export interface PasswordPostgres {
  port: number;
  /** Runs SQL as the server's owner (e.g. ALTER ROLE … PASSWORD). */
  asOwner(sql: string): Promise<void>;
  /** A Postgresql connector configuration logging in as `user` with `password`. */
  configuration(user: string, password: string): Record<string, unknown>;
  stop(): Promise<void>;
}

/** Starts an embedded PostgreSQL in a temporary folder (a few seconds); stop() removes it. */
export async function startPasswordPostgres(): Promise<PasswordPostgres> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "ds-e2e-pw-"));
  const db = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  return {
    port: db.port,
    asOwner: async (sql) => {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
    configuration: (user, password) => ({
      host: "127.0.0.1",
      port: db.port,
      database: "postgres",
      schema: "public",
      connect_timeout: 5,
      credentials: { auth_type: "username/password", username: user, password },
    }),
    stop: async () => {
      await db.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
