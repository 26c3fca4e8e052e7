// 3. MariaDB ↔ PostgreSQL: a full sync of N customers each way through the real worker, and a re-run
// with no change, each against the closest native bulk copy between the same two servers measured
// in the same run (best of two):
//   MariaDB → PostgreSQL: the `mariadb` client's batch output of the SELECT piped into COPY … FROM STDIN;
//   PostgreSQL → MariaDB: COPY (SELECT …) TO STDOUT streamed into LOAD DATA LOCAL INFILE (mysql2).
// Every copy, native or synced, is checked row for row with a fingerprint both servers compute.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { ResultSetHeader } from "mysql2/promise";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { loadDestination } from "@/lib/connectors/registry";
import type { Row } from "@/lib/connectors/types";
import { createSync, pgConfig, runSync } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { MariaServer, mariaCustomerTableDdl, pgFingerprint, type TableFingerprint } from "./lib/mariadb";
import { CUSTOMER_COLUMNS, customerTableDdl, query, withClient } from "./lib/pg";
import { fmt } from "./lib/report";
import { measuredRun, phases, type CpuScope } from "./sync";

type Baseline = { name: string; value: number; unit: string };

const SELECT = `SELECT ${CUSTOMER_COLUMNS} FROM customers`;

/** The MariaDB command-line client on PATH (`mariadb`, else the older name `mysql`). */
function findClient(): string | undefined {
  for (const name of ["mariadb", "mysql"]) {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
      try {
        accessSync(path.join(dir, name), constants.X_OK);
        return path.join(dir, name);
      } catch {
        // not in this directory
      }
    }
  }
  return undefined;
}

/**
 * MariaDB → PostgreSQL natively: `mariadb --batch` escapes tab, newline, backslash and NUL exactly as
 * COPY's text format reads them, but prints NULL as the bare word NULL, which a string 'NULL' also
 * prints as. So the SELECT turns NULL into a lone NUL character (printed `\0`) and COPY takes `\0`
 * as its NULL marker: COPY matches it before unescaping, and no PostgreSQL text can hold a NUL.
 * (A carriage return would still break it: the client does not escape it.) Both sessions in UTC.
 */
async function clientToCopy(ctx: BenchContext, maria: MariaServer, client: string, table: string): Promise<number> {
  await query(ctx.destinationUrl, `DROP TABLE IF EXISTS ${table}`);
  await query(ctx.destinationUrl, customerTableDdl(table));
  const columns = CUSTOMER_COLUMNS.split(", ").map((c) => `IFNULL(${c}, CHAR(0 USING utf8mb4))`);
  const sql = `SET time_zone = '+00:00'; SELECT ${columns.join(", ")} FROM customers`;
  const { args, env } = maria.client();
  return withClient(ctx.destinationUrl, async (dst) => {
    await dst.query("SET TimeZone = 'UTC'");
    const started = performance.now();
    const child = spawn(client, [...args, "--batch", "--skip-column-names", "--quick", "--default-character-set=utf8mb4", "-e", sql], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    const into = dst.query(copyFrom(`COPY ${table} (${CUSTOMER_COLUMNS}) FROM STDIN WITH (NULL '\\0')`));
    await pipeline(child.stdout, into);
    const code = await exited;
    if (code !== 0) throw new Error(`${path.basename(client)} exited with ${code}: ${stderr.trim()}`);
    return performance.now() - started;
  });
}

/**
 * PostgreSQL → MariaDB natively: COPY's text format is LOAD DATA's default (tab, newline, backslash
 * escapes, \N for NULL; only \f and \v, which MariaDB does not know, would not round-trip). The
 * timestamps leave PostgreSQL in UTC without an offset, which MariaDB does not parse.
 */
async function copyToLoadData(ctx: BenchContext, maria: MariaServer, table: string): Promise<number> {
  await maria.exec(`DROP TABLE IF EXISTS ${maria.database}.${table}`);
  await maria.exec(mariaCustomerTableDdl(`${maria.database}.${table}`));
  const columns = CUSTOMER_COLUMNS.replace("updated_at", "updated_at AT TIME ZONE 'UTC'");
  const conn = await maria.connect();
  try {
    return await withClient(ctx.sourceUrl, async (src) => {
      const started = performance.now();
      const out = src.query(copyTo(`COPY (SELECT ${columns} FROM customers) TO STDOUT`));
      const [result] = await conn.query<ResultSetHeader>({
        sql: `LOAD DATA LOCAL INFILE 'copy' INTO TABLE ${table} CHARACTER SET utf8mb4 (${CUSTOMER_COLUMNS})`,
        infileStreamFactory: () => out,
      });
      const ms = performance.now() - started;
      if (result.warningStatus > 0) throw new Error(`LOAD DATA gave ${result.warningStatus} warnings`);
      return ms;
    });
  } finally {
    await conn.end().catch(() => conn.destroy());
  }
}

const same = (a: TableFingerprint, b: TableFingerprint) => a.rows === b.rows && a.sum === b.sum;

/** One way between the two servers: the sync's ends, the native copy and how tables are checked. */
interface Direction {
  label: string;
  /** Its key in the --json output. */
  key: string;
  source: { connectorName: string; config: Row };
  destination: { connectorName: string; config: Row; table: string };
  /** Where the CPU of its runs is measured besides the worker. */
  scope: CpuScope;
  baselineName: string;
  /** One native copy into a fresh table; milliseconds. */
  baseline(table: string): Promise<number>;
  fingerprintOf(side: "source" | "destination", table: string): Promise<TableFingerprint>;
  createTable(table: string): Promise<void>;
  dropTable(table: string): Promise<void>;
  /**
   * The model query to measure with when a first sync of a few rows with the plain SELECT fails (a
   * connector bug): the figures are then still measured, and the notes say why and what changed.
   */
  fallback?: { query: string; what: string };
}

/** A sync from the direction's source into `table` with `sql` as its model query. */
async function createDirectionSync(ctx: BenchContext, d: Direction, table: string, sql: string): Promise<number> {
  const discovered = await (await loadDestination(d.destination.connectorName)).discover(d.destination.config);
  const catalog = { ...discovered, streams: discovered.streams.filter((s) => s.name === table) };
  const { syncId } = await createSync({
    workspaceId: ctx.workspaceId,
    source: d.source,
    query: sql,
    destination: { connectorName: d.destination.connectorName, config: d.destination.config, catalog },
  });
  return syncId;
}

/** A first sync of ten rows with the plain SELECT: why it failed (with sample record errors), if it did. */
async function probe(ctx: BenchContext, d: Direction): Promise<string | undefined> {
  await d.createTable("customers_probe");
  const syncId = await createDirectionSync(ctx, d, "customers_probe", `${SELECT} WHERE id <= 10`);
  try {
    await runSync(ctx.workspaceId, syncId);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await d.dropTable("customers_probe");
  }
}

/** Best of two native copies, the full sync, the no-change re-run; each checked against the source. */
async function benchDirection(ctx: BenchContext, d: Direction): Promise<void> {
  const { report, args } = ctx;
  const n = args.rows;
  const source = await d.fingerprintOf("source", "customers");
  let base: Baseline | undefined;
  ctx.log(`mariadb: ${d.label}: baseline (${d.baselineName})`);
  try {
    const ms = Math.min(await d.baseline("customers_native"), await d.baseline("customers_native"));
    const copied = await d.fingerprintOf("destination", "customers_native");
    await d.dropTable("customers_native");
    base = { name: d.baselineName, value: ms / 1000, unit: "s" };
    report.add({
      section: "mariadb",
      name: `${d.label}: baseline, ${n.toLocaleString("en-US")} rows`,
      value: base.value,
      unit: "s",
      target: "rows identical",
      pass: same(copied, source),
      note: `${d.baselineName}, ${fmt(n / base.value, "rows/s")}`,
    });
  } catch (err) {
    report.note(`${d.label}: the baseline (${d.baselineName}) failed, the sync figures have no ratio: ${err instanceof Error ? err.message : String(err)}`);
  }

  // Without the probe, a connector that fails every row would spend many minutes isolating them.
  let sql = SELECT;
  let caveat = "";
  const failure = d.fallback ? await probe(ctx, d) : undefined;
  if (failure && d.fallback) {
    sql = d.fallback.query;
    caveat = `, ${d.fallback.what}`;
    report.note(`${d.label}: CONNECTOR BUG: a sync of ten rows with \`${SELECT}\` failed, so its figures are measured with ${d.fallback.what} (\`${sql}\`): ${failure}`);
  }
  const table = d.destination.table;
  await d.createTable(table);
  const syncId = await createDirectionSync(ctx, d, table, sql);

  ctx.log(`mariadb: ${d.label}: full sync of ${n.toLocaleString("en-US")} rows`);
  const full = await measuredRun(ctx, `${d.label} full sync`, () => runSync(ctx.workspaceId, syncId), d.scope);
  const landed = await d.fingerprintOf("destination", table);
  const fullS = full.duration_ms / 1000;
  report.add({
    section: "mariadb",
    name: `${d.label}: full sync`,
    value: fullS,
    unit: "s",
    baseline: base,
    target: "rows identical",
    pass: full.total_rows === n && full.failed_rows === 0 && same(landed, source),
    note: `${landed.rows.toLocaleString("en-US")} rows in destination, ${fmt(n / fullS, "rows/s")}${caveat}`,
  });
  report.note(`${d.label} full sync by phase: ${phases(full)}; queue pick-up ${fmt(full.queued_ms / 1000, "s")} (not counted)`);

  ctx.log(`mariadb: ${d.label}: re-run, no change`);
  const again = await measuredRun(ctx, `${d.label} no-change re-run`, () => runSync(ctx.workspaceId, syncId), d.scope);
  const againS = again.duration_ms / 1000;
  report.add({ section: "mariadb", name: `${d.label}: re-run, no change`, value: againS, unit: "s", baseline: base });
  report.add({
    section: "mariadb",
    name: `${d.label}: re-run, no change: rows sent`,
    value: again.total_rows,
    unit: "rows",
    target: "0",
    pass: again.total_rows === 0,
  });
  report.note(`${d.label} no-change re-run by phase: ${phases(again)}`);
  ctx.report.extra[d.key] = { baselineMs: base ? base.value * 1000 : undefined, full, again };
}

export async function benchMariadb(ctx: BenchContext): Promise<void> {
  if (!ctx.worker) throw new Error("the MariaDB bench needs the worker");
  let maria: MariaServer;
  try {
    maria = await MariaServer.open();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const where = new URL(process.env.MARIADB_URL ?? "mysql://127.0.0.1:3306").host;
    ctx.report.note(`mariadb: skipped, no MariaDB server at ${where} (${why}); set MARIADB_URL to run it`);
    ctx.log(`mariadb: skipped, no MariaDB server at ${where}: ${why}`);
    return;
  }
  const failures: string[] = [];
  try {
    ctx.log(`mariadb: MariaDB ${await maria.version()} at ${maria.host}, database ${maria.database}`);
    await maria.dropStale();
    await maria.freshDatabase();
    ctx.log(`mariadb: source: ${ctx.args.rows.toLocaleString("en-US")} customers in MariaDB`);
    await maria.fillCustomers("customers", ctx.args.rows);
    const pid = await maria.localPid();
    const server = pid ? [{ label: "the MariaDB server (the whole process: other clients too)", pid }] : [];
    if (!pid) ctx.report.note(`mariadb: the MariaDB server's process is not visible from here, its CPU is not measured`);
    const app = { label: "application database", url: ctx.appUrl };
    const client = findClient();

    const directions: Direction[] = [
      {
        label: "MariaDB → PostgreSQL",
        key: "mariadbToPostgresql",
        source: { connectorName: "MariaDB", config: maria.connectorConfig() },
        destination: { connectorName: "Postgresql", config: pgConfig(ctx.destinationUrl), table: "customers_from_mariadb" },
        scope: { databases: [app, { label: "destination", url: ctx.destinationUrl }], processes: server },
        baselineName: "mariadb --batch | COPY",
        baseline: (table) => {
          if (!client) throw new Error("neither `mariadb` nor `mysql` (the MariaDB command-line client) is on PATH");
          return clientToCopy(ctx, maria, client, table);
        },
        fingerprintOf: (side, table) => (side === "source" ? maria.fingerprint(table) : pgFingerprint(ctx.destinationUrl, table)),
        createTable: (table) => query(ctx.destinationUrl, customerTableDdl(table)).then(() => undefined),
        dropTable: (table) => query(ctx.destinationUrl, `DROP TABLE ${table}`).then(() => undefined),
      },
      {
        label: "PostgreSQL → MariaDB",
        key: "postgresqlToMariadb",
        source: { connectorName: "Postgresql", config: pgConfig(ctx.sourceUrl) },
        destination: { connectorName: "MariaDB", config: maria.connectorConfig(), table: "customers_copy" },
        scope: { databases: [app, { label: "source", url: ctx.sourceUrl }], processes: server },
        baselineName: "COPY | LOAD DATA LOCAL",
        baseline: (table) => copyToLoadData(ctx, maria, table),
        fingerprintOf: (side, table) => (side === "source" ? pgFingerprint(ctx.sourceUrl, table) : maria.fingerprint(table)),
        createTable: (table) => maria.exec(mariaCustomerTableDdl(`${maria.database}.${table}`)).then(() => undefined),
        dropTable: (table) => maria.exec(`DROP TABLE ${maria.database}.${table}`).then(() => undefined),
        // The MariaDB destination passes PostgreSQL's ISO 8601 timestamps ("…T…Z") on as they are,
        // which MariaDB rejects in strict mode; the same instant as MariaDB's literal goes through.
        fallback: {
          query: SELECT.replace("updated_at", "to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS updated_at"),
          what: "updated_at formatted in the model query",
        },
      },
    ];
    // One direction failing (a connector bug) still lets the other be measured.
    for (const d of directions) {
      await benchDirection(ctx, d).catch((err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        failures.push(`${d.label}: ${why}`);
        ctx.report.add({ section: "mariadb", name: `${d.label}: full sync`, value: NaN, unit: "s", target: "succeeds", pass: false, note: "failed, see the notes" });
        ctx.report.note(`${d.label} failed: ${why}`);
      });
    }
  } finally {
    if (!ctx.args.keep) await maria.dropOwn().catch(() => undefined);
    await maria.close();
  }
  if (failures.length > 0) throw new Error(`The MariaDB section failed:\n${failures.join("\n")}`);
}
