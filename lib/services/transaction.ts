// Services that write take an optional transaction: alone, each change runs in a transaction of
// its own; config apply (./config.ts) passes one, so every change of a file lands together
// or not at all.
import "server-only";
import { prisma } from "@/lib/db/client";
import { oneAtATime } from "@/lib/runtime/one-at-a-time";
import type { Prisma } from "@/lib/generated/prisma/client";

export type Tx = Prisma.TransactionClient;

/**
 * Runs `fn` in the caller's transaction `db` when given, else in a new one. With `queueKey` (a lock the
 * transaction takes, such as a workspace's create lock) this process opens such transactions one at a
 * time: a burst of creates waits here, not on the advisory lock with a pool connection each, so it
 * cannot take every connection of the process (seen: 30 alert-rule creates at once outlasted the
 * pool's wait on a loaded machine, and other workspaces' writes would have waited behind them).
 */
export function inTransaction<T>(db: Tx | undefined, fn: (tx: Tx) => Promise<T>, queueKey?: string): Promise<T> {
  if (db) return fn(db);
  return queueKey === undefined ? prisma().$transaction(fn) : oneAtATime(queueKey, () => prisma().$transaction(fn));
}
