// GET /api/health's answer: the process is up; is the application database?
import "server-only";
import { databaseIsUp } from "@/lib/db/health";

export interface Health {
  status: "ok" | "degraded";
  database: "up" | "down";
}

export async function health(): Promise<Health> {
  const up = await databaseIsUp();
  return { status: up ? "ok" : "degraded", database: up ? "up" : "down" };
}
