// withTransaction: BEGIN, the work, COMMIT; ROLLBACK when the work throws; the connection goes back
// to the pool either way.
import "server-only";
import type { Pool, PoolClient } from "pg";

export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
