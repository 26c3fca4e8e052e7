// The webhook worker, started beside the run worker (lib/engine/worker.ts): loops taking delivery
// jobs, and a sweep that re-sends the attempts of deliveries whose job was lost (a worker that died
// between claiming an attempt and scheduling the next). Jobs name their attempt, so a re-sent job
// that finds its attempt made does nothing.
import "server-only";
import type PgBoss from "pg-boss";
import { sql } from "kysely";
import { db } from "@/lib/db/kysely";
import { logger } from "@/lib/logger";
import { every } from "../every";
import { attemptDelivery } from "./deliver";
import { enqueueDeliveries, WEBHOOK_QUEUE, webhookBoss, type DeliveryJob } from "./queue";

/** Attempts one loop makes at once: receivers are slow or down independently of each other. */
const BATCH = 10;
const LOOPS = 2;
const SWEEP_MS = 60_000;
/** A pending delivery this far past its due time has lost its job. */
const OVERDUE_SECONDS = 120;

async function handle(job: PgBoss.Job<DeliveryJob>): Promise<void> {
  const deliveryId = Number(job.data?.deliveryId);
  const attempt = Number(job.data?.attempt);
  if (!Number.isInteger(deliveryId) || !Number.isInteger(attempt)) return;
  try {
    const result = await attemptDelivery(deliveryId, attempt);
    logger.debug({ deliveryId, attempt, result }, "webhook attempt");
  } catch (err) {
    // Left pending: the sweep sends the attempt again once it is overdue.
    logger.warn({ deliveryId, attempt, err: (err as Error).message }, "webhook attempt stopped by an error");
  }
}

/** Re-sends the attempts of pending deliveries long past due (their job was lost). */
export async function sweepOverdueDeliveries(): Promise<number> {
  const rows = await db()
    .selectFrom("webhook_deliveries")
    .select(["id", "attempts"])
    .where("status", "=", "pending")
    .where("next_attempt_at", "<", sql<Date>`now() - ${OVERDUE_SECONDS} * interval '1 second'`)
    .orderBy("next_attempt_at")
    .limit(100)
    .execute();
  await enqueueDeliveries(rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 })));
  return rows.length;
}

export interface WebhookWorkerHandle {
  stop(): Promise<void>;
}

export async function startWebhookWorker(): Promise<WebhookWorkerHandle> {
  const boss = await webhookBoss();
  const ids: string[] = [];
  for (let i = 0; i < LOOPS; i++) {
    ids.push(
      await boss.work<DeliveryJob>(WEBHOOK_QUEUE, { batchSize: BATCH, pollingIntervalSeconds: 1 }, async (jobs) => {
        await Promise.all(jobs.map(handle));
      }),
    );
  }
  const sweep = every(
    SWEEP_MS,
    async () => void (await sweepOverdueDeliveries()),
    (err) => logger.warn({ err: (err as Error).message }, "webhook sweep failed"),
  );
  return {
    async stop() {
      await sweep.stop();
      for (const id of ids) await boss.offWork({ id });
    },
  };
}
