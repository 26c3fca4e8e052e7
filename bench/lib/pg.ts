// The PostgreSQL server the bench uses and its throw-away databases (ds_bench_<pid>_*), created
// fresh by a run and dropped at its end, so two runs on one server never touch each other's. BENCH_DATABASE_URL (or TEST_DATABASE_URL) names
// the server; else 127.0.0.1:5432 as postgres; else an embedded PostgreSQL under .data/bench.
import path from "node:path";
import { Client } from "pg";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";

export const BENCH_DB_PREFIX = "ds_bench_";
const OWN_PREFIX = `${BENCH_DB_PREFIX}${process.pid}_`;

export class PgServer {
  private constructor(
    /** URL of the server's maintenance database. */
    readonly adminUrl: string,
    private readonly embedded?: EmbeddedDatabase,
  ) {}

  static async open(): Promise<PgServer> {
    const explicit = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (explicit) return new PgServer(explicit);
    const local = "postgresql://postgres@127.0.0.1:5432/postgres";
    try {
      await query(local, "SELECT 1");
      return new PgServer(local);
    } catch {
      const embedded = await startEmbeddedPostgres({ dataDir: path.resolve(".data/bench"), port: 54359 });
      const url = new URL(embedded.url);
      url.pathname = "/postgres";
      return new PgServer(url.toString(), embedded);
    }
  }

  url(database: string): string {
    const u = new URL(this.adminUrl);
    u.pathname = `/${database}`;
    return u.toString();
  }

  /** Drops and creates `ds_bench_<pid>_<suffix>`; returns its URL. */
  async freshDatabase(suffix: string): Promise<string> {
    const name = `${OWN_PREFIX}${suffix}`;
    await query(this.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await query(this.adminUrl, `CREATE DATABASE ${name}`);
    return this.url(name);
  }

  /** Drops this run's databases. */
  async dropOwn(): Promise<void> {
    const rows = await query<{ datname: string }>(this.adminUrl, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [OWN_PREFIX]);
    for (const { datname } of rows) await query(this.adminUrl, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }

  /**
   * Drops databases left by runs that died: their pid is gone and nobody is connected. (A live run's
   * destination database can be idle between two syncs, so "no connection" alone is not enough.)
   */
  async dropStale(): Promise<void> {
    const rows = await query<{ datname: string }>(
      this.adminUrl,
      `SELECT datname FROM pg_database d WHERE starts_with(datname, $1) AND NOT starts_with(datname, $2)
         AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
      [BENCH_DB_PREFIX, OWN_PREFIX],
    );
    for (const { datname } of rows) {
      const pid = Number(/^ds_bench_(\d+)_/.exec(datname)?.[1]);
      if (!pid || processAlive(pid)) continue;
      await query(this.adminUrl, `DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.embedded?.stop();
  }
}

export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function query<T extends Record<string, unknown> = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  return withClient(url, async (c) => (await c.query<T>(text, values)).rows);
}

/** The interface's sample record: customers(id, state, last_name, first_name, phone_number, email_address, updated_at). */
export const CUSTOMER_COLUMNS = "id, state, last_name, first_name, phone_number, email_address, updated_at";

export function customerTableDdl(table: string): string {
  return `CREATE TABLE ${table} (
    id integer PRIMARY KEY, state text, last_name text, first_name text,
    phone_number bigint, email_address text, updated_at timestamptz NOT NULL)`;
}

/** `rows` customers generated server-side in one statement. */
export async function fillCustomers(url: string, table: string, rows: number): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(customerTableDdl(table));
    await c.query(
      `INSERT INTO ${table} (${CUSTOMER_COLUMNS})
       SELECT i,
              (ARRAY['CA','NY','TX','WA','FL','IL','MA','CO'])[1 + i % 8],
              (ARRAY['Smith','Garcia','Chen','Okafor','Müller','Rossi','Kowalski','Tanaka'])[1 + (i / 8) % 8],
              (ARRAY['Ada','Grace','Linus','Margaret','Alan','Barbara','Ken','Radia'])[1 + (i / 64) % 8],
              5550000000 + i,
              'customer' || i || '@example.com',
              timestamptz '2026-01-01' + i * interval '1 second'
       FROM generate_series(1, $1::int) AS i`,
      [rows],
    );
    await c.query(`VACUUM ANALYZE ${table}`);
  });
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
