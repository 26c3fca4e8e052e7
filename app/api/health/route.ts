// GET /api/health - liveness, plus whether the application database answers.
import { NextResponse } from "next/server";
import { databaseIsUp } from "@/lib/db/health";

export const dynamic = "force-dynamic";

export async function GET() {
  const up = await databaseIsUp();
  return NextResponse.json({ status: up ? "ok" : "degraded", database: up ? "up" : "down" }, { status: up ? 200 : 503 });
}
