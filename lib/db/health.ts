import { pgPool } from "./client";

/** True when the application database answers a trivial query within two seconds. */
export async function databaseIsUp(): Promise<boolean> {
  try {
    await Promise.race([
      pgPool().query("SELECT 1"),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2_000)),
    ]);
    return true;
  } catch {
    return false;
  }
}
