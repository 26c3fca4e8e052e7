// Evaluating alert rules: after a general run ends (evaluateRunEnd) and periodically for what time
// alone breaks (sweepAlerts). Each rule keeps one state per sync (alert_states: ok or firing, since,
// the last run evaluated); an event, and so a message, is created only when that state changes, so a
// rule fires once when its condition starts and once when it ends, never per run in between. The
// change is made under the state row's lock in the same transaction as the event, so two workers
// evaluating at once cannot both fire, and the late evaluation of an older run is ignored.
import "server-only";
import { sql, type ExpressionBuilder, type InferResult } from "kysely";
import type { PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { db, viaClient, type DB } from "@/lib/db/kysely";
import { withTransaction } from "@/lib/engine";
import type { AlertRule } from "@/lib/generated/prisma/client";
import type { AlertStatus, SyncRunStatus } from "@/lib/generated/prisma/enums";
import { runOutcome } from "@/lib/sync-rules/run-outcome";
import { breachAfterRun, describeCondition, runningTooLong, staleBreach } from "./conditions";
import { sweepLiveLag } from "./live-lag";
import { composeEvent, type RunSummary } from "./messages";

/** The columns of a run that a rule judges, and where it belongs. */
const RUN_COLUMNS = [
  "id", "workspace_id", "sync_id", "sync_run_type", "status", "failed_rows", "total_rows", "error", "canceled_by", "started_at", "finished_at",
] as const;
const runs = () => db().selectFrom("sync_runs").select(RUN_COLUMNS);
type RunRow = InferResult<ReturnType<typeof runs>>[number];

const ENDED: readonly SyncRunStatus[] = ["success", "failed", "canceled"];

function summary(run: RunRow): RunSummary {
  return {
    id: run.id,
    outcome: runOutcome(run).replace(/_/g, " "),
    total_rows: run.total_rows,
    failed_rows: run.failed_rows,
    error: run.error,
    minutes: run.started_at && run.finished_at ? (run.finished_at.getTime() - run.started_at.getTime()) / 60_000 : null,
  };
}

/**
 * Moves the rule's state for one sync to `to`; returns the id of the event that records the change,
 * or null when nothing changed (or `runId` is older than the run last evaluated).
 */
async function transition(rule: AlertRule, syncId: number, to: AlertStatus, run: RunRow | null): Promise<number | null> {
  return withTransaction(pgPool(), async (client) => {
    // The state row: the rule's, for this sync.
    const key = (eb: ExpressionBuilder<DB, "alert_states">) => eb.and({ alert_rule_id: rule.id, sync_id: syncId });
    await viaClient(client, db().insertInto("alert_states").values({ alert_rule_id: rule.id, sync_id: syncId, status: "ok" }).onConflict((oc) => oc.doNothing()));
    const [state] = await viaClient(client, db().selectFrom("alert_states").select(["status", "since", "last_run_id"]).where(key).forUpdate());
    if (run && state.last_run_id !== null && run.id < state.last_run_id) return null;
    if (state.status === to) {
      if (run) await viaClient(client, db().updateTable("alert_states").set({ last_run_id: run.id, updated_at: sql`now()` }).where(key));
      return null;
    }
    const eventId = await createEvent(client, rule, syncId, to === "firing" ? "firing" : "resolved", run, state.since);
    await viaClient(
      client,
      db()
        .updateTable("alert_states")
        .set((eb) => ({ status: to, since: sql`now()`, last_run_id: run ? run.id : eb.ref("last_run_id"), last_event_id: eventId, updated_at: sql`now()` }))
        .where(key),
    );
    return eventId;
  });
}

async function createEvent(client: PoolClient, rule: AlertRule, syncId: number, kind: "firing" | "resolved", run: RunRow | null, since: Date): Promise<number> {
  const syncs = await viaClient(client, db().selectFrom("syncs").select("name").where("id", "=", syncId));
  const channels = await viaClient(
    client,
    db()
      .selectFrom("alert_channels")
      .select(["id", "name", "channel_type"])
      .where("workspace_id", "=", rule.workspaceId)
      .where("id", "=", (eb) => eb.fn.any(eb.val(rule.channelIds)))
      .orderBy("id"),
  );
  const { subject, message } = composeEvent({
    kind,
    ruleName: rule.name,
    condition: describeCondition(rule),
    sync: { id: syncId, name: syncs[0]?.name ?? "" },
    run: run ? summary(run) : null,
    since: kind === "resolved" ? since : null,
  });
  const deliveries = channels.map((c) => ({ channel_id: c.id, channel_name: c.name, channel_type: c.channel_type, status: "pending", error: null, at: null }));
  const [event] = await viaClient(
    client,
    db()
      .insertInto("alert_events")
      .values({
        workspace_id: rule.workspaceId,
        alert_rule_id: rule.id,
        rule_name: rule.name,
        sync_id: syncId,
        sync_run_id: run?.id ?? null,
        kind,
        subject,
        message,
        deliveries: sql`${JSON.stringify(deliveries)}::jsonb`,
      })
      .returning("id"),
  );
  return event.id;
}

async function loadRun(runId: number): Promise<RunRow | undefined> {
  return runs().where("id", "=", runId).executeTakeFirst();
}

/**
 * After a run ended: the rules of its workspace that watch its sync. Returns the ids of the events
 * created, or "not_ended" when the run has not ended (yet: the caller retries later).
 */
export async function evaluateRunEnd(runId: number): Promise<number[] | "not_ended"> {
  const run = await loadRun(runId);
  if (!run || run.sync_run_type !== "general") return [];
  if (!ENDED.includes(run.status)) return "not_ended";
  const rules = await prisma().alertRule.findMany({
    where: { workspaceId: run.workspace_id, enabled: true, OR: [{ syncId: null }, { syncId: run.sync_id }] },
    orderBy: { id: "asc" },
  });
  const events: number[] = [];
  for (const rule of rules) {
    const breach = breachAfterRun(rule, run);
    if (breach === undefined) continue;
    const id = await transition(rule, run.sync_id, breach ? "firing" : "ok", run);
    if (id !== null) events.push(id);
  }
  return events;
}

/** The syncs a rule watches now: its own, or every enabled sync of the workspace. */
async function watchedSyncs(rule: AlertRule) {
  return db()
    .selectFrom("syncs as s")
    .select((eb) => [
      "s.id",
      "s.created_at",
      eb
        .selectFrom("sync_runs as r")
        .select((r) => r.fn.max("r.finished_at").as("finished_at"))
        .whereRef("r.sync_id", "=", "s.id")
        .where("r.sync_run_type", "=", "general")
        .where("r.status", "=", "success")
        .as("last_success"),
    ])
    .where("s.workspace_id", "=", rule.workspaceId)
    .where("s.deleted_at", "is", null)
    .where("s.status", "<>", "disabled")
    .$if(rule.syncId !== null, (q) => q.where("s.id", "=", rule.syncId!))
    .execute();
}

/** Runs of the rule's syncs that still run and started before `before` (their first claim). */
async function longRunningRuns(rule: AlertRule, before: Date): Promise<RunRow[]> {
  return runs()
    .where("workspace_id", "=", rule.workspaceId)
    .$if(rule.syncId !== null, (q) => q.where("sync_id", "=", rule.syncId!))
    .where("sync_run_type", "=", "general")
    .where("status", "in", ["started", "querying", "in_progress", "paused"])
    .where("started_at", "<", before)
    .execute();
}

/**
 * The periodic check (the scheduler queues it every ALERT_SWEEP_SECONDS): sync_not_succeeded fires
 * when a sync's last success (else its creation) is older than the threshold and resolves when it is
 * not; run_duration fires for a run still running past the threshold; the live lag conditions measure
 * each live sync's lag (./live-lag.ts). Returns the events created.
 */
export async function sweepAlerts(now: Date = new Date()): Promise<number[]> {
  const rules = await prisma().alertRule.findMany({
    where: { enabled: true, condition: { in: ["sync_not_succeeded", "run_duration", "live_lag_bytes", "live_lag_seconds"] } },
    orderBy: { id: "asc" },
  });
  const events: number[] = [];
  for (const rule of rules) {
    if (rule.condition === "live_lag_bytes" || rule.condition === "live_lag_seconds") {
      events.push(...(await sweepLiveLag(rule, now, (syncId, firing) => transition(rule, syncId, firing ? "firing" : "ok", null))));
    } else if (rule.condition === "sync_not_succeeded") {
      for (const sync of await watchedSyncs(rule)) {
        const breach = staleBreach(rule, sync.last_success ?? sync.created_at, now);
        const id = await transition(rule, sync.id, breach ? "firing" : "ok", null);
        if (id !== null) events.push(id);
      }
    } else {
      const before = new Date(now.getTime() - (rule.threshold ?? 0) * 60_000);
      for (const run of await longRunningRuns(rule, before)) {
        if (!run.started_at || !runningTooLong(rule, run.started_at, now)) continue;
        const id = await transition(rule, run.sync_id, "firing", run);
        if (id !== null) events.push(id);
      }
    }
  }
  return events;
}
