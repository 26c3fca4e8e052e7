// GET /api/health - liveness, plus whether the application database answers.
import { NextResponse } from "next/server";
import { health } from "@/lib/services/insights/health";

export const dynamic = "force-dynamic";

export async function GET() {
  const body = await health();
  return NextResponse.json(body, { status: body.database === "up" ? 200 : 503 });
}
