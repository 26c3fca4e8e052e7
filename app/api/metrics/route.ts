// GET /api/metrics - Prometheus metrics (runs by status, rows, durations, queue depth, rate-limit wait).
// Only for METRICS_TOKEN holders or, without a token configured, a scraper on this machine.
import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/settings/env";
import { errorJson } from "@/lib/http/error-body";
import { isLocalRequest } from "@/lib/http/forwarded";
import { metricsRegistry } from "@/lib/services/insights/metrics";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const token = env.METRICS_TOKEN;
  const allowed = token ? sameText(req.headers.get("authorization") ?? "", `Bearer ${token}`) : isLocalRequest(req.headers);
  if (!allowed) {
    const message = token
      ? "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>."
      : "Metrics are served only to this machine; set METRICS_TOKEN to scrape them from elsewhere.";
    return errorJson(401, "unauthorized", message);
  }
  const registry = metricsRegistry();
  try {
    return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
  } catch {
    return errorJson(503, "service_unavailable", "Metrics are unavailable while the database is down.");
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
