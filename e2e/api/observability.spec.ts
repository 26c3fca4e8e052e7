// Observability over HTTP: liveness, readiness, Prometheus metrics, request ids.
// (503 while the database is down: tests/ops/app-db-restart.test.ts; log lines: tests/ops/secrets.test.ts.)
import { expect, test } from "@playwright/test";

test("GET /api/health is 200 {status: ok, database: up}", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ status: "ok", database: "up" });
});

test("GET /api/ready checks the database and the queue", async ({ request }) => {
  const res = await request.get("/api/ready");
  expect(res.status()).toBe(200);
  expect(await res.json()).toMatchObject({ status: "ready", database: "up", queue: "up" });
});

test("GET /api/metrics is Prometheus text with runs, rows, durations, queue depth and rate-limit wait", async ({ request }) => {
  const res = await request.get("/api/metrics");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("text/plain");
  const text = await res.text();
  for (const name of [
    "datasync_sync_runs",
    "datasync_rows_total",
    "datasync_sync_run_duration_seconds",
    "datasync_queue_depth",
    "datasync_rate_limit_wait_seconds_total",
    "datasync_process_cpu_user_seconds_total",
  ]) {
    expect(text, name).toMatch(new RegExp(`^# HELP ${name}`, "m"));
  }
  expect(text).toMatch(/^# TYPE datasync_sync_run_duration_seconds histogram/m);
  expect(text).toMatch(/^datasync_sync_run_duration_seconds_bucket\{le="\+Inf"\} \d+/m);
  expect(text).toMatch(/^datasync_sync_run_duration_seconds_count \d+/m);
  expect(text).toMatch(/^datasync_rows_total\{outcome="success"\} \d+/m);
  expect(text).toMatch(/^datasync_queue_depth \d+/m);
});

test("every API answer carries a request id; a sane given one is echoed", async ({ request }) => {
  const generated = await request.get("/api/v1/syncs");
  expect(generated.status()).toBe(401);
  expect(generated.headers()["x-request-id"]).toMatch(/^[\w-]{8,64}$/);
  const given = await request.get("/api/v1/syncs", { headers: { "x-request-id": "trace-abc.123" } });
  expect(given.headers()["x-request-id"]).toBe("trace-abc.123");
  const hostile = await request.get("/api/v1/syncs", { headers: { "x-request-id": "<script>alert(1)</script>" } });
  expect(hostile.headers()["x-request-id"]).not.toContain("<");
});
