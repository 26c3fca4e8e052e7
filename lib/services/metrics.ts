// Prometheus metrics, computed from the database at scrape time so that every web process reports
// the same numbers for all workers (runs live in PostgreSQL, not in one process's memory).
import "server-only";
import { Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { pgPool } from "@/lib/db/client";

const DURATION_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600];

interface Globals {
  metricsRegistry?: Registry;
}
const globals = globalThis as unknown as Globals;

function build(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "datasync_" });

  new Gauge({
    name: "datasync_sync_runs",
    help: "Sync runs by status (all time).",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const { rows } = await pgPool().query<{ status: string; n: string }>(
        "SELECT status::text, count(*) AS n FROM sync_runs GROUP BY status",
      );
      this.reset();
      for (const r of rows) this.set({ status: r.status }, Number(r.n));
    },
  });

  new Gauge({
    name: "datasync_rows_total",
    help: "Rows synced successfully and rows failed, over all runs.",
    labelNames: ["outcome"],
    registers: [registry],
    async collect() {
      const { rows } = await pgPool().query<{ ok: string | null; failed: string | null; skipped: string | null }>(
        "SELECT sum(successful_rows) AS ok, sum(failed_rows) AS failed, sum(skipped_rows) AS skipped FROM sync_runs",
      );
      this.set({ outcome: "success" }, Number(rows[0]?.ok ?? 0));
      this.set({ outcome: "failed" }, Number(rows[0]?.failed ?? 0));
      this.set({ outcome: "skipped" }, Number(rows[0]?.skipped ?? 0));
    },
  });

  // Rebuilt from the database at each scrape (runs finish in any worker process): bucket counts
  // and the sum come from one aggregate query, then replayed into a real histogram.
  new Histogram({
    name: "datasync_sync_run_duration_seconds",
    help: "Duration of finished sync runs, seconds.",
    buckets: DURATION_BUCKETS,
    registers: [registry],
    async collect() {
      const { rows } = await pgPool().query<{ le: number | null; n: string }>(
        `SELECT width_bucket(d, $1::float8[]) AS le, count(*) AS n FROM (
           SELECT extract(epoch FROM finished_at - started_at)::float8 AS d FROM sync_runs
           WHERE finished_at IS NOT NULL AND started_at IS NOT NULL) t GROUP BY 1`,
        [DURATION_BUCKETS],
      );
      this.reset();
      // width_bucket(d, bounds) = index of the first bound above d; observing that bound puts the
      // run in its bucket (so the sum is approximated by bucket bounds; past the last: +Inf only).
      const beyond = DURATION_BUCKETS[DURATION_BUCKETS.length - 1] * 2;
      for (const row of rows) {
        const bound = DURATION_BUCKETS[Number(row.le ?? 0)] ?? beyond;
        for (let i = 0; i < Number(row.n); i++) this.observe(bound);
      }
    },
  });

  new Gauge({
    name: "datasync_queue_depth",
    help: "Jobs waiting in the queue (created or retry), all queues.",
    registers: [registry],
    async collect() {
      const exists = await pgPool().query("SELECT to_regclass('pgboss.job') IS NOT NULL AS ok");
      if (!exists.rows[0]?.ok) return this.set(0);
      const { rows } = await pgPool().query<{ n: string }>(
        "SELECT count(*) AS n FROM pgboss.job WHERE state IN ('created', 'retry')",
      );
      this.set(Number(rows[0]?.n ?? 0));
    },
  });

  new Gauge({
    name: "datasync_rate_limit_wait_seconds_total",
    help: "Time runs spent waiting for destination rate-limit budget.",
    registers: [registry],
    async collect() {
      const { rows } = await pgPool().query<{ ms: string | null }>(
        "SELECT sum(coalesce((timings->>'wait')::float8, 0)) AS ms FROM sync_runs",
      );
      this.set(Number(rows[0]?.ms ?? 0) / 1000);
    },
  });

  return registry;
}

export function metricsRegistry(): Registry {
  globals.metricsRegistry ??= build();
  return globals.metricsRegistry;
}

/** Readiness: the database answers and the queue's schema is installed. */
export async function readiness(): Promise<{ database: "up" | "down"; queue: "up" | "down" }> {
  try {
    const { rows } = await pgPool().query<{ queue: boolean }>("SELECT to_regclass('pgboss.job') IS NOT NULL AS queue");
    return { database: "up", queue: rows[0]?.queue ? "up" : "down" };
  } catch {
    return { database: "down", queue: "down" };
  }
}
