// withTransaction: BEGIN, the work, COMMIT; ROLLBACK when the work throws; the connection goes back
// to the pool either way. Work registered with afterCommit runs once the COMMIT is done (and never
// after a ROLLBACK): what must not be seen before the rows it names exist (a pg-boss send on another
// connection, a hook that opens transactions of its own).
import "server-only";
import type { Pool, PoolClient } from "pg";
import { logger } from "@/lib/logger";

type Work = () => Promise<void>;
const pending = new WeakMap<PoolClient, Work[]>();

export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const after: Work[] = [];
  let result: T;
  try {
    await client.query("BEGIN");
    pending.set(client, after);
    result = await fn(client);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    pending.delete(client);
    client.release();
  }
  // Each after-commit step is on its own: one failing is logged and does not stop the others
  // (each has a sweep that redoes what it lost: docs/architecture.md, "Run events").
  for (const work of after) await work().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "after-commit work failed"));
  return result;
}

/**
 * Runs `work` after the transaction of `client` commits. A client outside withTransaction commits
 * each statement as it goes, so the work runs at once.
 */
export async function afterCommit(client: PoolClient, work: Work): Promise<void> {
  const queue = pending.get(client);
  if (queue) queue.push(work);
  else await work().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "after-commit work failed"));
}
