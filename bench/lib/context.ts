// What every bench section gets from bench/run.ts.
import type { BenchArgs } from "./args";
import type { PgServer } from "./pg";
import type { Child } from "./process";
import type { Report } from "./report";

export interface BenchContext {
  args: BenchArgs;
  report: Report;
  server: PgServer;
  /** Application database (migrated); process.env.DATABASE_URL points at it. */
  appUrl: string;
  /** Source database with `customers` of args.rows rows. */
  sourceUrl: string;
  destinationUrl: string;
  workspaceId: number;
  /** The worker process (scripts/worker.ts), when a section needs one. */
  worker?: Child;
  log(line: string): void;
}
