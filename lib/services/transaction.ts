// Services that write take an optional transaction: alone, each change runs in a transaction of
// its own; config apply (./config.ts) passes one, so every change of a file lands together
// or not at all.
import "server-only";
import { prisma } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

export type Tx = Prisma.TransactionClient;

/** Runs `fn` in the caller's transaction `db` when given, else in a new one. */
export function inTransaction<T>(db: Tx | undefined, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db ? fn(db) : prisma().$transaction(fn);
}
