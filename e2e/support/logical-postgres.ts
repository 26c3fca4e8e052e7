// A PostgreSQL with wal_level=logical for the specs of live syncs (docs/live-syncs.md): the shared
// server runs wal_level=replica, so a spec starts an embedded one of its own on a free port.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { freePort } from "../../tests/support/free-port";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/db/embedded";

/** The source's database: not the server's default name (the product refuses what looks like its own application database). */
const SOURCE_DB = "live_source";

export class LogicalPostgres {
  private constructor(
    private readonly server: EmbeddedDatabase,
    private readonly dataDir: string,
  ) {}

  /** Starts the server and creates the source database (about 5 s). */
  static async start(): Promise<LogicalPostgres> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "ds-e2e-live-"));
    const server = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      settings: { wal_level: "logical", max_replication_slots: "4", max_wal_senders: "4" },
    });
    const pg = new LogicalPostgres(server, dataDir);
    await pg.exec(`CREATE DATABASE ${SOURCE_DB}`, "postgres");
    return pg;
  }

  /** Runs SQL on the source database (or another one of the server). */
  async exec(text: string, database = SOURCE_DB): Promise<void> {
    const at = new URL(this.server.url);
    at.pathname = `/${database}`;
    const client = new Client({ connectionString: at.toString() });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  /** A Postgresql connector's configuration for the source database. */
  configuration(): Record<string, unknown> {
    return {
      host: "127.0.0.1",
      port: this.server.port,
      database: SOURCE_DB,
      schema: "public",
      connect_timeout: 5,
      credentials: { auth_type: "username/password", username: "postgres", password: decodeURIComponent(new URL(this.server.url).password) },
    };
  }

  /** The replication slots on the server (a deleted live sync's goes a moment after the delete answers). */
  async slots(): Promise<string[]> {
    const client = new Client({ connectionString: this.server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ slot_name: string }>("SELECT slot_name FROM pg_replication_slots");
      return rows.map((r) => r.slot_name);
    } finally {
      await client.end();
    }
  }

  /**
   * Stops the server and removes its files. Delete the live syncs first: the worker then drops their
   * slots, which this waits for (up to 30 s) so that the drop does not meet a server shutting down.
   */
  async stop(): Promise<void> {
    for (let waited = 0; waited < 30_000; waited += 500) {
      if ((await this.slots().catch(() => [])).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await this.server.stop().catch(() => undefined);
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
