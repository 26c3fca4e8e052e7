// GET /api/metrics - Prometheus metrics (runs by status, rows, durations, queue depth, rate-limit wait).
import { metricsRegistry } from "@/lib/services/metrics";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const token = process.env.METRICS_TOKEN;
  if (token && req.headers.get("authorization") !== `Bearer ${token}`) {
    return Response.json({ message: "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.", status: "unauthorized" }, { status: 401 });
  }
  const registry = metricsRegistry();
  try {
    return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
  } catch {
    return Response.json({ message: "Metrics are unavailable while the database is down.", status: "service_unavailable" }, { status: 503 });
  }
}
