// GET /api/ready - readiness: 200 when the database and the job queue are usable, else 503.
import { readiness } from "@/lib/services/insights/metrics";

export const dynamic = "force-dynamic";

export async function GET() {
  const state = await readiness();
  const ready = state.database === "up" && state.queue === "up";
  return Response.json({ status: ready ? "ready" : "not_ready", ...state }, { status: ready ? 200 : 503 });
}
