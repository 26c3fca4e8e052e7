// The webhook delivery queue: pg-boss in the application database, beside the run queue. A job names
// a delivery and the attempt it is for, so a job sent twice (the sweep in worker.ts re-sends overdue
// ones) makes one attempt, never two.
import "server-only";
import type PgBoss from "pg-boss";
import { ensureQueue, getBoss } from "../queue";

export const WEBHOOK_QUEUE = "webhook-delivery";

export interface DeliveryJob {
  deliveryId: number;
  /** The attempt this job makes (1 for the first); a job whose attempt was made already does nothing. */
  attempt: number;
}

const ready = new WeakSet<PgBoss>();

/** The process's pg-boss, with the webhook queue created. */
export async function webhookBoss(): Promise<PgBoss> {
  const boss = await getBoss();
  if (!ready.has(boss)) {
    // No pg-boss retries: a failed attempt schedules its own next one (deliver.ts), and the sweep
    // re-sends a job lost with a crashed worker.
    await ensureQueue(boss, { name: WEBHOOK_QUEUE, policy: "standard", retryLimit: 0, expireInSeconds: 15 * 60 });
    ready.add(boss);
  }
  return boss;
}

/** Puts attempts on the queue, to start at `startAt` (now when absent or past). */
export async function enqueueDeliveries(jobs: DeliveryJob[], startAt?: Date | null): Promise<void> {
  if (jobs.length === 0) return;
  const boss = await webhookBoss();
  const startAfter = startAt && startAt.getTime() > Date.now() ? startAt : undefined;
  // send (not insert) so each job takes the queue's own settings.
  for (const data of jobs) await boss.send(WEBHOOK_QUEUE, data, startAfter ? { startAfter } : {});
}
