// 4. ClickHouse → PostgreSQL: a full sync of N customers (the same customers, generated in a MergeTree
// table of a private ClickHouse server on a loopback port) through the real worker, and a re-run with
// no change, against the closest native bulk copy measured in the same run (best of two):
// `clickhouse-client … FORMAT TabSeparated` piped into COPY … FROM STDIN. Every copy, native or
// synced, is checked row for row with a fingerprint both servers compute.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { loadDestination } from "@/lib/connectors/registry";
import { clickhouseBinary, startClickhouse, type ClickhouseServer } from "@/tests/support/clickhouse-server";
import { createSync, pgConfig, readRun, runSync } from "./lib/app";
import type { BenchContext } from "./lib/context";
import { pgFingerprint, type TableFingerprint } from "./lib/mariadb";
import { CUSTOMER_COLUMNS, customerTableDdl, query, withClient } from "./lib/pg";
import { fmt } from "./lib/report";
import { measuredRun, phases } from "./sync";

const DATABASE = "bench";
const SELECT = `SELECT ${CUSTOMER_COLUMNS} FROM customers`;
const CLIENT_CANDIDATES = [process.env.CLICKHOUSE_CLIENT_BIN, "/usr/bin/clickhouse-client", "/usr/bin/clickhouse"];

/** The same customers as fillCustomers() in PostgreSQL, generated server-side, with ClickHouse's closest types. */
async function fillCustomers(ch: ClickhouseServer, rows: number): Promise<void> {
  await ch.exec(`CREATE DATABASE ${DATABASE}`);
  await ch.exec(
    `CREATE TABLE ${DATABASE}.customers (id Int32, state Nullable(String), last_name Nullable(String), first_name Nullable(String),
       phone_number Nullable(Int64), email_address Nullable(String), updated_at DateTime('UTC')) ENGINE = MergeTree ORDER BY id`,
  );
  await ch.exec(
    `INSERT INTO ${DATABASE}.customers
     SELECT toInt32(i),
            ['CA','NY','TX','WA','FL','IL','MA','CO'][1 + i % 8],
            ['Smith','Garcia','Chen','Okafor','Müller','Rossi','Kowalski','Tanaka'][1 + intDiv(i, 8) % 8],
            ['Ada','Grace','Linus','Margaret','Alan','Barbara','Ken','Radia'][1 + intDiv(i, 64) % 8],
            toInt64(5550000000 + i),
            concat('customer', toString(i), '@example.com'),
            toDateTime('2026-01-01 00:00:00', 'UTC') + i
     FROM (SELECT number + 1 AS i FROM system.numbers LIMIT ${Math.floor(rows)})`,
  );
}

/**
 * pgFingerprint's row text in ClickHouse: the columns joined by `|`, NULL as \N, updated_at as
 * epoch µs; the sum of the first 32 bits (big-endian) of each row's MD5.
 */
async function chFingerprint(ch: ClickhouseServer): Promise<TableFingerprint> {
  const text = CUSTOMER_COLUMNS.split(", ")
    .map((c) => (c === "updated_at" ? "toString(toUInt64(updated_at) * 1000000)" : `ifNull(toString(${c}), '\\\\N')`))
    .join(", '|', ");
  const answer = await ch.exec(
    `SELECT count(), sum(reinterpretAsUInt32(reverse(substring(toString(MD5(concat(${text}))), 1, 4)))) FROM ${DATABASE}.customers FORMAT TabSeparated`,
  );
  const [rows, sum] = answer.trim().split("\t");
  return { rows: Number(rows), sum };
}

/**
 * ClickHouse → PostgreSQL natively: TabSeparated escapes backslash, tab and newline as COPY's text
 * format reads them and writes NULL as \N; DateTimes print in the column's zone (UTC), read by a UTC session.
 */
async function clientToCopy(ctx: BenchContext, ch: ClickhouseServer, client: string, table: string): Promise<number> {
  await query(ctx.destinationUrl, `DROP TABLE IF EXISTS ${table}`);
  await query(ctx.destinationUrl, customerTableDdl(table));
  return withClient(ctx.destinationUrl, async (dst) => {
    await dst.query("SET TimeZone = 'UTC'");
    const started = performance.now();
    const args = ["--host", "127.0.0.1", "--port", String(ch.tcpPort), "--user", ch.username, "--password", ch.password, "--database", DATABASE];
    const child = spawn(client, [...(client.endsWith("/clickhouse") ? ["client"] : []), ...args, "--query", `${SELECT} FORMAT TabSeparated`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    await pipeline(child.stdout, dst.query(copyFrom(`COPY ${table} (${CUSTOMER_COLUMNS}) FROM STDIN`)));
    const code = await exited;
    if (code !== 0) throw new Error(`clickhouse-client exited with ${code}: ${stderr.trim()}`);
    return performance.now() - started;
  });
}

const same = (a: TableFingerprint, b: TableFingerprint) => a.rows === b.rows && a.sum === b.sum;

/** Whether the run took the pass-through path (its records kept as COPY text). */
async function passedThrough(ctx: BenchContext, runId: number): Promise<boolean> {
  const [r] = await query<{ text: boolean }>(ctx.appUrl, "SELECT record_columns IS NOT NULL AS text FROM sync_runs WHERE id = $1", [runId]);
  return r?.text ?? false;
}

async function measure(ctx: BenchContext, ch: ClickhouseServer): Promise<void> {
  const { report, args } = ctx;
  const n = args.rows;
  const source = await chFingerprint(ch);
  if (source.rows !== n) throw new Error(`ClickHouse holds ${source.rows} customers, not ${n}`);
  const client = CLIENT_CANDIDATES.find((p): p is string => !!p && existsSync(p));
  let base: { name: string; value: number; unit: string } | undefined;
  if (!client) report.note("clickhouse: no clickhouse-client binary: the sync figures have no baseline");
  else {
    ctx.log("clickhouse: baseline (clickhouse-client | COPY)");
    const ms = Math.min(await clientToCopy(ctx, ch, client, "customers_native"), await clientToCopy(ctx, ch, client, "customers_native"));
    const copied = await pgFingerprint(ctx.destinationUrl, "customers_native");
    await query(ctx.destinationUrl, "DROP TABLE customers_native");
    base = { name: "clickhouse-client | COPY", value: ms / 1000, unit: "s" };
    report.add({
      section: "clickhouse",
      name: `ClickHouse → PostgreSQL: baseline, ${n.toLocaleString("en-US")} rows`,
      value: base.value,
      unit: "s",
      target: "rows identical",
      pass: same(copied, source),
      note: `clickhouse-client FORMAT TabSeparated | COPY, ${fmt(n / base.value, "rows/s")}`,
    });
  }

  const config = { url: ch.url, username: ch.username, password: ch.password, database: DATABASE };
  const syncInto = async (table: string, sql: string) => {
    await query(ctx.destinationUrl, customerTableDdl(table));
    const discovered = await (await loadDestination("Postgresql")).discover(pgConfig(ctx.destinationUrl));
    const catalog = { ...discovered, streams: discovered.streams.filter((s) => s.name === table) };
    const destination = { connectorName: "Postgresql", config: pgConfig(ctx.destinationUrl), catalog };
    return (await createSync({ workspaceId: ctx.workspaceId, source: { connectorName: "Clickhouse", config }, query: sql, destination })).syncId;
  };
  // Warm-up, as in the sync section (which it follows in a whole run): run alone, the worker would
  // compile the ClickHouse path's code during the measured sync.
  const warmRows = Math.min(n, 50_000);
  ctx.log(`clickhouse: warm-up sync of ${warmRows.toLocaleString("en-US")} rows into another table`);
  await runSync(ctx.workspaceId, await syncInto("customers_ch_warmup", `${SELECT} WHERE id <= ${warmRows}`));
  await query(ctx.destinationUrl, "DROP TABLE customers_ch_warmup");

  const table = "customers_from_clickhouse";
  const syncId = await syncInto(table, SELECT);
  const app = { label: "application database", url: ctx.appUrl };
  const scope = {
    databases: [app, { label: "destination", url: ctx.destinationUrl }],
    processes: ch.pid ? [{ label: "the ClickHouse server", pid: ch.pid }] : [],
  };

  ctx.log(`clickhouse: full sync of ${n.toLocaleString("en-US")} rows`);
  const full = await measuredRun(ctx, "ClickHouse → PostgreSQL full sync", () => runSync(ctx.workspaceId, syncId), scope);
  const path = (await passedThrough(ctx, full.id)) ? "pass-through (COPY text)" : "JSON path";
  const landed = await pgFingerprint(ctx.destinationUrl, table);
  const fullS = full.duration_ms / 1000;
  report.add({
    section: "clickhouse",
    name: "ClickHouse → PostgreSQL: full sync",
    value: fullS,
    unit: "s",
    baseline: base,
    target: "≤ 3×, rows identical",
    pass: full.total_rows === n && full.failed_rows === 0 && same(landed, source) && (!base || fullS <= 3 * base.value),
    note: `${landed.rows.toLocaleString("en-US")} rows in destination, ${fmt(n / fullS, "rows/s")}, ${path}`,
  });
  report.note(`ClickHouse → PostgreSQL full sync by phase: ${phases(full)}; queue pick-up ${fmt(full.queued_ms / 1000, "s")} (not counted)`);

  ctx.log("clickhouse: re-run, no change");
  const again = await measuredRun(ctx, "ClickHouse → PostgreSQL no-change re-run", () => runSync(ctx.workspaceId, syncId), scope);
  report.add({ section: "clickhouse", name: "ClickHouse → PostgreSQL: re-run, no change", value: again.duration_ms / 1000, unit: "s", baseline: base });
  report.add({
    section: "clickhouse",
    name: "ClickHouse → PostgreSQL: re-run, no change: rows sent",
    value: again.total_rows,
    unit: "rows",
    target: "0",
    pass: again.total_rows === 0 && (await readRun(again.id)).failed_rows === 0,
  });
  report.note(`ClickHouse → PostgreSQL no-change re-run by phase: ${phases(again)}`);
  report.extra.clickhouseToPostgresql = { baselineMs: base ? base.value * 1000 : undefined, path, full, again };
}

export async function benchClickhouse(ctx: BenchContext): Promise<void> {
  if (!ctx.worker) throw new Error("the ClickHouse bench needs the worker");
  if (!clickhouseBinary()) {
    ctx.report.note("clickhouse: skipped, no clickhouse-server binary (set CLICKHOUSE_SERVER_BIN, or apt-get install clickhouse-server)");
    ctx.log("clickhouse: skipped, no clickhouse-server binary");
    return;
  }
  const ch = await startClickhouse();
  try {
    ctx.log(`clickhouse: ClickHouse ${(await ch.exec("SELECT version()")).trim()} at ${new URL(ch.url).host}`);
    ctx.log(`clickhouse: source: ${ctx.args.rows.toLocaleString("en-US")} customers in ClickHouse`);
    await fillCustomers(ch, ctx.args.rows);
    await measure(ctx, ch);
  } finally {
    await ch.stop();
  }
}
