// The composition of the engine and the parts that hang on it, called at process start
// (scripts/start.ts, scripts/worker.ts): who hears a run's events on the engine's bus
// (lib/engine/events.ts) and what runs beside its worker and scheduler. The engine imports no
// service; this module is the one place that lists them.
//
// Run events → subscribers, in this order (each in its own savepoint of the status change's transaction):
//   run.started, run.needs_approval  → webhooks (deliveries recorded, jobs sent after the commit)
//   run.succeeded                    → webhooks, alerts (evaluation job in the transaction), sequences (after the commit)
//   run.failed, run.canceled         → webhooks, alerts
import "server-only";
import { sequencesOnRunSucceeded, startEngine, subscribe, webhooksOnRunEvent, type EngineOptions, type RunEventName } from "@/lib/engine";
import { alertsOnRunEnded, queueAlertSweep, startAlertWork } from "./notifications/alerts/queue";

const ENDS: RunEventName[] = ["run.succeeded", "run.failed", "run.canceled"];

const globals = globalThis as { __datasyncRunSubscribers?: boolean };

/** Registers the run event subscribers of this process, once (later calls do nothing). */
export function registerRunSubscribers(): void {
  if (globals.__datasyncRunSubscribers) return;
  globals.__datasyncRunSubscribers = true;
  for (const event of ["run.started", "run.needs_approval", ...ENDS] as const) subscribe(event, "webhooks", webhooksOnRunEvent);
  for (const event of ENDS) subscribe(event, "alerts", alertsOnRunEnded);
  subscribe("run.succeeded", "sequences", sequencesOnRunSucceeded);
}

/** startEngine with the subscribers registered and the alert queue's work and sweep beside it. */
export async function startDatasyncEngine(options: Omit<EngineOptions, "services">): Promise<void> {
  registerRunSubscribers();
  await startEngine({ ...options, services: { besideWorker: [startAlertWork], sweeps: [queueAlertSweep] } });
}
