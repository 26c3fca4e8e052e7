// The MariaDB server of the MariaDB section (MARIADB_URL, else root@127.0.0.1:3306) and this run's
// throw-away database on it, ds_bench_<pid>_m, created fresh and dropped at the end, so two runs on
// one server never touch each other's tables.
import { readFileSync } from "node:fs";
import mysql from "mysql2/promise";
import type { Row } from "@/lib/connectors/types";
import { BENCH_DB_PREFIX, CUSTOMER_COLUMNS, processAlive, query } from "./pg";

const DEFAULT_URL = "mysql://root@127.0.0.1:3306/test";

/** The same customers as fillCustomers() in PostgreSQL, with MariaDB's closest column types. */
export function mariaCustomerTableDdl(table: string): string {
  return `CREATE TABLE ${table} (
    id INT PRIMARY KEY, state VARCHAR(255), last_name VARCHAR(255), first_name VARCHAR(255),
    phone_number BIGINT, email_address VARCHAR(255), updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`;
}

/**
 * A cheap fingerprint of a customers table that both servers compute alike: the row count and the
 * sum of the first 32 bits of md5 over each row's text (NULL as \N, updated_at as epoch µs). Equal
 * fingerprints mean the rows arrived unchanged, accents, NULLs and timestamps included.
 */
export interface TableFingerprint {
  rows: number;
  sum: string;
}

const rowText = (asText: (column: string) => string, nullOf: string, epochMicros: string) =>
  CUSTOMER_COLUMNS.split(", ")
    .map((c) => (c === "updated_at" ? epochMicros : `COALESCE(${asText(c)}, '${nullOf}')`))
    .join(", ");

export async function pgFingerprint(url: string, table: string): Promise<TableFingerprint> {
  const text = `concat_ws('|', ${rowText((c) => `${c}::text`, "\\N", "(extract(epoch FROM updated_at) * 1000000)::bigint")})`;
  const [r] = await query<{ rows: number; sum: string }>(
    url,
    `SELECT count(*)::int AS rows, coalesce(sum(('x' || substr(md5(${text}), 1, 8))::bit(32)::bigint), 0)::text AS sum FROM ${table}`,
  );
  return r;
}

export class MariaServer {
  readonly database = `${BENCH_DB_PREFIX}${process.pid}_m`;

  private constructor(
    private readonly url: URL,
    private readonly options: mysql.ConnectionOptions,
    private readonly admin: mysql.Connection,
  ) {}

  /** Connects; throws with the reason when the server cannot be reached. */
  static async open(): Promise<MariaServer> {
    const url = new URL(process.env.MARIADB_URL ?? DEFAULT_URL);
    const options: mysql.ConnectionOptions = {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      connectTimeout: 5000,
      supportBigNumbers: true,
      bigNumberStrings: true,
    };
    const admin = await mysql.createConnection(options);
    admin.on("error", () => undefined);
    await admin.query("SET SESSION time_zone = '+00:00'");
    return new MariaServer(url, options, admin);
  }

  get host(): string {
    return `${this.url.hostname}:${this.url.port || 3306}`;
  }

  async version(): Promise<string> {
    const [rows] = await this.admin.query<mysql.RowDataPacket[]>("SELECT VERSION() AS v");
    return String(rows[0].v);
  }

  /** The MariaDB connector's configuration for this run's database. */
  connectorConfig(): Row {
    return {
      host: this.url.hostname,
      port: Number(this.url.port || 3306),
      username: decodeURIComponent(this.url.username),
      password: decodeURIComponent(this.url.password),
      database: this.database,
    };
  }

  /** Arguments and environment for the `mariadb` command-line client on this run's database. */
  client(): { args: string[]; env: Record<string, string> } {
    const password = decodeURIComponent(this.url.password);
    return {
      args: ["--no-defaults", `--host=${this.url.hostname}`, `--port=${this.url.port || 3306}`, `--user=${decodeURIComponent(this.url.username)}`, `--database=${this.database}`],
      env: password ? { MYSQL_PWD: password } : {},
    };
  }

  async exec(sql: string, values: unknown[] = []): Promise<mysql.RowDataPacket[]> {
    const [rows] = await this.admin.query<mysql.RowDataPacket[]>(sql, values);
    return rows;
  }

  /** A connection on this run's database in UTC, for LOAD DATA LOCAL INFILE fed from a stream. */
  async connect(): Promise<mysql.Connection> {
    const conn = await mysql.createConnection({ ...this.options, database: this.database });
    conn.on("error", () => undefined);
    await conn.query("SET SESSION time_zone = '+00:00'");
    return conn;
  }

  async freshDatabase(): Promise<void> {
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.database}`);
    await this.admin.query(`CREATE DATABASE ${this.database} CHARACTER SET utf8mb4`);
  }

  /** Drops databases of bench runs whose process is gone and that nobody uses. */
  async dropStale(): Promise<void> {
    const rows = await this.exec(
      `SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA s
        WHERE SCHEMA_NAME LIKE 'ds\\_bench\\_%\\_m' AND SCHEMA_NAME <> ?
          AND NOT EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.DB = s.SCHEMA_NAME)`,
      [this.database],
    );
    for (const { name } of rows) {
      const pid = Number(/^ds_bench_(\d+)_m$/.exec(String(name))?.[1]);
      if (!pid || processAlive(pid)) continue;
      await this.admin.query(`DROP DATABASE IF EXISTS \`${String(name)}\``).catch(() => undefined);
    }
  }

  async dropOwn(): Promise<void> {
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.database}`);
  }

  async close(): Promise<void> {
    await this.admin.end().catch(() => this.admin.destroy());
  }

  /** `rows` customers generated server-side (the SEQUENCE engine), the same values as fillCustomers(). */
  async fillCustomers(table: string, rows: number): Promise<void> {
    const t = `${this.database}.${table}`;
    await this.admin.query(mariaCustomerTableDdl(t));
    await this.admin.query(
      `INSERT INTO ${t} (${CUSTOMER_COLUMNS})
       SELECT seq,
              ELT(1 + seq % 8, 'CA','NY','TX','WA','FL','IL','MA','CO'),
              ELT(1 + (seq DIV 8) % 8, 'Smith','Garcia','Chen','Okafor','Müller','Rossi','Kowalski','Tanaka'),
              ELT(1 + (seq DIV 64) % 8, 'Ada','Grace','Linus','Margaret','Alan','Barbara','Ken','Radia'),
              5550000000 + seq,
              CONCAT('customer', seq, '@example.com'),
              TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq SECOND
       FROM ${this.database}.seq_1_to_${Math.floor(rows)}`,
    );
    await this.admin.query(`ANALYZE TABLE ${t}`);
  }

  async fingerprint(table: string): Promise<TableFingerprint> {
    const text = `CONCAT_WS('|', ${rowText((c) => c, "\\\\N", "CAST(UNIX_TIMESTAMP(updated_at) * 1000000 AS SIGNED)")})`;
    const [r] = await this.exec(
      `SELECT COUNT(*) AS n, CAST(IFNULL(SUM(CAST(CONV(SUBSTR(MD5(${text}), 1, 8), 16, 10) AS UNSIGNED)), 0) AS CHAR) AS s FROM ${this.database}.${table}`,
    );
    return { rows: Number(r.n), sum: String(r.s) };
  }

  async count(table: string): Promise<number> {
    const [r] = await this.exec(`SELECT COUNT(*) AS n FROM ${this.database}.${table}`);
    return Number(r.n);
  }

  /** The server's process when it runs on this machine and /proc shows it (its CPU is measured). */
  async localPid(): Promise<number | undefined> {
    try {
      const [r] = await this.exec("SELECT @@pid_file AS f");
      const pid = Number(readFileSync(String(r.f), "utf8").trim());
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      return /^(mariadbd|mysqld)$/.test(comm) ? pid : undefined;
    } catch {
      return undefined;
    }
  }
}
