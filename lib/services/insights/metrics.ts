// Prometheus metrics, computed from the database at scrape time so that every web process reports
// the same numbers for all workers (runs live in PostgreSQL, not in one process's memory).
import "server-only";
import { Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { sql } from "kysely";
import { db } from "@/lib/db/kysely";
import { queueDepth, queueInstalled } from "@/lib/engine";

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
      const rows = await db()
        .selectFrom("sync_runs")
        .select((eb) => ["status", eb.fn.countAll<bigint>().as("n")])
        .groupBy("status")
        .execute();
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
      // sum(int4) is int8: bigint, or null over no rows.
      const rows = await db()
        .selectFrom("sync_runs")
        .select((eb) => [
          eb.fn.sum<bigint | null>("successful_rows").as("ok"),
          eb.fn.sum<bigint | null>("failed_rows").as("failed"),
          eb.fn.sum<bigint | null>("skipped_rows").as("skipped"),
        ])
        .execute();
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
      const durations = db()
        .selectFrom("sync_runs")
        .select((eb) => sql<number>`extract(epoch FROM ${eb.ref("finished_at")} - ${eb.ref("started_at")})::float8`.as("d"))
        .where("finished_at", "is not", null)
        .where("started_at", "is not", null);
      const rows = await db()
        .selectFrom(durations.as("t"))
        .select((eb) => [sql<number | null>`width_bucket(${eb.ref("t.d")}, ${DURATION_BUCKETS}::float8[])`.as("le"), eb.fn.countAll<bigint>().as("n")])
        .groupBy(sql`1`)
        .execute();
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
      this.set(await queueDepth());
    },
  });

  new Gauge({
    name: "datasync_rate_limit_wait_seconds_total",
    help: "Time runs spent waiting for destination rate-limit budget.",
    registers: [registry],
    async collect() {
      const rows = await db()
        .selectFrom("sync_runs")
        .select((eb) => sql<number | null>`sum(coalesce((${eb.ref("timings")}->>'wait')::float8, 0))`.as("ms"))
        .execute();
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
    return { database: "up", queue: (await queueInstalled()) ? "up" : "down" };
  } catch {
    return { database: "down", queue: "down" };
  }
}
