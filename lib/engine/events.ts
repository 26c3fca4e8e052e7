// The engine's event bus: a run's life as typed events (started, progress, needs approval, succeeded,
// failed, canceled) that other parts subscribe to (alerts, webhooks, sequences: lib/services/run-events.ts
// registers them at process start). The engine publishes; it never imports who listens.
//
// Delivery is transactional: an event is published inside the transaction that made the change it
// tells of, and each subscriber gets that transaction's client and writes its queue rows with it.
// The event and its consequences commit or roll back together, so no process death between the
// change and its hooks can lose one, and a change that rolls back sends nothing. Work that must not
// run before the commit (a pg-boss send on another connection, a hook with transactions of its own)
// goes to ctx.afterCommit; what it writes is recorded first, so a sweep redoes it when a process dies
// in between (docs/architecture.md, "Run events").
//
// Subscribers run one after another in the order they subscribed, each inside a SAVEPOINT: one that
// throws is rolled back to it and logged, and the change, the run and the other subscribers go on.
import "server-only";
import type { PoolClient } from "pg";
import type { SyncRunStatus, SyncRunType } from "@/lib/generated/prisma/enums";
import { logger } from "@/lib/logger";
import type { RunOutcome } from "@/lib/sync-rules/run-outcome";
import { afterCommit } from "./transaction";

/** The counters of a run when the event was published (the sync run resource's names, camelCase). */
export interface RunCounts {
  totalQueryRows: number;
  totalRows: number;
  skippedRows: number;
  successfulRows: number;
  failedRows: number;
  duplicateRows: number;
  processedRows: number;
}

/** What every run event carries: the run as its transaction sees it. */
export interface RunEvent {
  runId: number;
  syncId: number;
  workspaceId: number;
  runType: SyncRunType;
  status: SyncRunStatus;
  outcome: RunOutcome;
  error: string | null;
  canceledBy: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  counts: RunCounts;
}

/** The events and their payloads. */
export interface RunEvents {
  /** Its first start (a resumed or approved run started before and sends none). */
  "run.started": RunEvent;
  /** A group of batches recorded: the counters moved. */
  "run.progress": RunEvent;
  /** Its sync's blast-radius limits held it before its first write. */
  "run.needs_approval": RunEvent;
  "run.succeeded": RunEvent;
  /** Ended failed by an error (not a cancel). */
  "run.failed": RunEvent;
  /** Someone stopped it (a cancel, disabling or deleting its sync). */
  "run.canceled": RunEvent;
}
export type RunEventName = keyof RunEvents;

export interface EventContext {
  /** The client of the transaction that made the change: write with it to commit with it. */
  client: PoolClient;
  /** Runs `work` once that transaction has committed (never if it rolls back). */
  afterCommit(work: () => Promise<void>): Promise<void>;
}

export type Subscriber<K extends RunEventName> = (event: RunEvents[K], ctx: EventContext) => Promise<void>;
type AnySubscriber = (event: RunEvents[RunEventName], ctx: EventContext) => Promise<void>;
interface Entry {
  name: string;
  handler: AnySubscriber;
}

// On globalThis: Next's route handlers (a cancel over the API) load their own copy of the engine's
// modules in the same process as scripts/start.ts, which registers the subscribers.
const globals = globalThis as { __datasyncRunEventBus?: Map<RunEventName, Entry[]> };
const subscribers: Map<RunEventName, Entry[]> = (globals.__datasyncRunEventBus ??= new Map());

/** Subscribes `handler` (named for the logs) to `event`; returns the unsubscribe. */
export function subscribe<K extends RunEventName>(event: K, name: string, handler: Subscriber<K>): () => void {
  // Every event of the map carries a RunEvent today; the cast keeps one list per event name.
  const entry: Entry = { name, handler: handler as AnySubscriber };
  subscribers.set(event, [...(subscribers.get(event) ?? []), entry]);
  return () => subscribers.set(event, (subscribers.get(event) ?? []).filter((e) => e !== entry));
}

/** Whether anyone listens: a publisher skips building the payload (a query) when nobody does. */
export function hasSubscribers(event: RunEventName): boolean {
  return (subscribers.get(event)?.length ?? 0) > 0;
}

/**
 * Hands `payload` to the subscribers of `event`, in order, inside the caller's transaction on
 * `client`. Never throws for a subscriber: its error is logged and its writes rolled back alone.
 */
export async function publish<K extends RunEventName>(client: PoolClient, event: K, payload: RunEvents[K]): Promise<void> {
  const ctx: EventContext = { client, afterCommit: (work) => afterCommit(client, work) };
  for (const entry of subscribers.get(event) ?? []) {
    await client.query("SAVEPOINT run_event");
    try {
      await entry.handler(payload, ctx);
      await client.query("RELEASE SAVEPOINT run_event");
    } catch (err) {
      await client.query("ROLLBACK TO SAVEPOINT run_event");
      logger.warn({ event, subscriber: entry.name, runId: payload.runId, err: (err as Error).message }, "a run event subscriber failed");
    }
  }
}
