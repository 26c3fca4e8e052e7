// The alert queue (pg-boss, in the application database beside the run queue): one job per ended
// run to evaluate, one per event to deliver, one per periodic sweep. Sends happen here, on a worker,
// never in the request or the run that caused them. A run's job is written with the transaction that
// ended it (alertsOnRunEnded), so it is never taken before the end is visible; a run not ended yet is
// still tried again (a job sent by hand), as are deliveries that failed, with backoff.
import "server-only";
import type { Pool, PoolClient } from "pg";
import type PgBoss from "pg-boss";
import { env } from "@/lib/settings/env";
import { pgPool } from "@/lib/db/client";
import { ensureQueue, getBoss, type EventContext, type RunEvent } from "@/lib/engine";
import { deliverAlertEvent } from "./deliver";
import { evaluateRunEnd, sweepAlerts } from "./evaluate";

export const ALERT_QUEUE = "alerts";

export type AlertJob = { kind: "run_ended"; runId: number } | { kind: "deliver"; eventId: number } | { kind: "sweep" };

const globals = globalThis as unknown as { __datasyncAlertQueues?: WeakSet<PgBoss> };
const ready: WeakSet<PgBoss> = (globals.__datasyncAlertQueues ??= new WeakSet());

/** The process's pg-boss with the alert queue created (once per pg-boss instance). */
async function alertBoss(): Promise<PgBoss> {
  const boss = await getBoss();
  if (ready.has(boss)) return boss;
  await ensureQueue(boss, {
    name: ALERT_QUEUE,
    policy: "standard",
    retryLimit: 5,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 15 * 60,
  });
  ready.add(boss);
  return boss;
}

export async function enqueueAlertJob(job: AlertJob, options: PgBoss.SendOptions = {}): Promise<void> {
  await (await alertBoss()).send(ALERT_QUEUE, job, options);
}

async function handle(job: AlertJob): Promise<void> {
  if (job.kind === "run_ended") {
    const events = await evaluateRunEnd(job.runId);
    if (events === "not_ended") throw new Error(`Run ${job.runId} has not ended yet; evaluated again shortly.`);
    for (const eventId of events) await enqueueAlertJob({ kind: "deliver", eventId });
  } else if (job.kind === "deliver") {
    const failed = await deliverAlertEvent(job.eventId);
    if (failed.length > 0) throw new Error(`Alert event ${job.eventId}: ${failed.map((d) => `${d.channel_name}: ${d.error}`).join("; ")}`);
  } else {
    for (const eventId of await sweepAlerts()) await enqueueAlertJob({ kind: "deliver", eventId });
  }
}

/** Whether any enabled rule could use this: one indexed query, so a workspace without alerts costs nothing more. */
async function anyEnabledRule(where: string, values: unknown[], db: Pool | PoolClient = pgPool()): Promise<boolean> {
  const { rowCount } = await db.query(`SELECT 1 FROM alert_rules WHERE enabled AND ${where} LIMIT 1`, values);
  return (rowCount ?? 0) > 0;
}

/**
 * The run event bus's subscriber for a run's end (lib/services/run-events.ts): its rules are
 * evaluated on the queue. The job is inserted with the transaction that ended the run, so it exists
 * exactly when the end does. A failure rolls back this subscriber alone (the bus logs it).
 */
export async function alertsOnRunEnded(event: RunEvent, { client }: EventContext): Promise<void> {
  if (event.runType !== "general") return;
  if (!(await anyEnabledRule("workspace_id = $1", [event.workspaceId], client))) return;
  const boss = await alertBoss();
  const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
  await boss.send(ALERT_QUEUE, { kind: "run_ended", runId: event.runId } satisfies AlertJob, { db });
}

/** The scheduler's periodic sweep, when a rule needs one. */
export async function queueAlertSweep(): Promise<void> {
  if (!(await anyEnabledRule("condition IN ('sync_not_succeeded', 'run_duration')", []))) return;
  // One sweep per period even if no worker takes them for a while (they would only repeat each other).
  await enqueueAlertJob({ kind: "sweep" }, { singletonKey: "sweep", singletonSeconds: env.ALERT_SWEEP_SECONDS });
}

export interface AlertWork {
  stop(): Promise<void>;
}

/** Takes alert jobs in this (worker) process. */
export async function startAlertWork(): Promise<AlertWork> {
  const boss = await alertBoss();
  const id = await boss.work<AlertJob>(ALERT_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) await handle(job.data);
  });
  return { stop: () => boss.offWork({ id }) };
}
