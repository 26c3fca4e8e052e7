// Evaluating alert rules: after a general run ends (evaluateRunEnd) and periodically for what time
// alone breaks (sweepAlerts). Each rule keeps one state per sync (alert_states: ok or firing, since,
// the last run evaluated); an event, and so a message, is created only when that state changes, so a
// rule fires once when its condition starts and once when it ends, never per run in between. The
// change is made under the state row's lock in the same transaction as the event, so two workers
// evaluating at once cannot both fire, and the late evaluation of an older run is ignored.
import "server-only";
import type { PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { withTransaction } from "@/lib/engine/transaction";
import type { AlertRule } from "@/lib/generated/prisma/client";
import type { AlertStatus } from "@/lib/generated/prisma/enums";
import { runOutcome } from "@/lib/sync-config/run-outcome";
import { breachAfterRun, describeCondition, runningTooLong, staleBreach, type EndedRunFacts } from "./conditions";
import { composeEvent, type RunSummary } from "./messages";

interface RunRow extends EndedRunFacts {
  id: number;
  workspace_id: number;
  sync_id: number;
  sync_run_type: string;
}

const ENDED = ["success", "failed", "canceled"];

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
    await client.query("INSERT INTO alert_states (alert_rule_id, sync_id, status) VALUES ($1, $2, 'ok') ON CONFLICT DO NOTHING", [rule.id, syncId]);
    const { rows } = await client.query<{ status: AlertStatus; since: Date; last_run_id: number | null }>(
      "SELECT status::text, since, last_run_id FROM alert_states WHERE alert_rule_id = $1 AND sync_id = $2 FOR UPDATE",
      [rule.id, syncId],
    );
    const state = rows[0];
    if (run && state.last_run_id !== null && run.id < state.last_run_id) return null;
    if (state.status === to) {
      if (run) await client.query("UPDATE alert_states SET last_run_id = $3, updated_at = now() WHERE alert_rule_id = $1 AND sync_id = $2", [rule.id, syncId, run.id]);
      return null;
    }
    const eventId = await createEvent(client, rule, syncId, to === "firing" ? "firing" : "resolved", run, state.since);
    await client.query(
      `UPDATE alert_states SET status = $3::alert_status, since = now(), last_run_id = COALESCE($4, last_run_id), last_event_id = $5, updated_at = now()
       WHERE alert_rule_id = $1 AND sync_id = $2`,
      [rule.id, syncId, to, run?.id ?? null, eventId],
    );
    return eventId;
  });
}

async function createEvent(client: PoolClient, rule: AlertRule, syncId: number, kind: "firing" | "resolved", run: RunRow | null, since: Date): Promise<number> {
  const { rows: syncs } = await client.query<{ name: string }>("SELECT name FROM syncs WHERE id = $1", [syncId]);
  const { rows: channels } = await client.query<{ id: number; name: string; channel_type: string }>(
    "SELECT id, name, channel_type::text FROM alert_channels WHERE workspace_id = $1 AND id = ANY($2::int[]) ORDER BY id",
    [rule.workspaceId, rule.channelIds],
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
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO alert_events (workspace_id, alert_rule_id, rule_name, sync_id, sync_run_id, kind, subject, message, deliveries)
     VALUES ($1, $2, $3, $4, $5, $6::alert_event_kind, $7, $8, $9::jsonb) RETURNING id`,
    [rule.workspaceId, rule.id, rule.name, syncId, run?.id ?? null, kind, subject, message, JSON.stringify(deliveries)],
  );
  return rows[0].id;
}

async function loadRun(runId: number): Promise<RunRow | undefined> {
  const { rows } = await pgPool().query<RunRow>(
    `SELECT id, workspace_id, sync_id, sync_run_type::text, status::text, failed_rows, total_rows, error, canceled_by, started_at, finished_at
       FROM sync_runs WHERE id = $1`,
    [runId],
  );
  return rows[0];
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
async function watchedSyncs(rule: AlertRule): Promise<{ id: number; created_at: Date; last_success: Date | null }[]> {
  const { rows } = await pgPool().query<{ id: number; created_at: Date; last_success: Date | null }>(
    `SELECT s.id, s.created_at,
            (SELECT max(r.finished_at) FROM sync_runs r WHERE r.sync_id = s.id AND r.sync_run_type = 'general' AND r.status = 'success') AS last_success
       FROM syncs s
      WHERE s.workspace_id = $1 AND s.deleted_at IS NULL AND s.status <> 'disabled' AND ($2::int IS NULL OR s.id = $2)`,
    [rule.workspaceId, rule.syncId],
  );
  return rows;
}

/** Runs of the rule's syncs that still run and started before `before` (their first claim). */
async function longRunningRuns(rule: AlertRule, before: Date): Promise<RunRow[]> {
  const { rows } = await pgPool().query<RunRow>(
    `SELECT id, workspace_id, sync_id, sync_run_type::text, status::text, failed_rows, total_rows, error, canceled_by, started_at, finished_at
       FROM sync_runs
      WHERE workspace_id = $1 AND ($2::int IS NULL OR sync_id = $2) AND sync_run_type = 'general'
        AND status IN ('started', 'querying', 'in_progress', 'paused') AND started_at < $3`,
    [rule.workspaceId, rule.syncId, before],
  );
  return rows;
}

/**
 * The periodic check (the scheduler queues it every ALERT_SWEEP_SECONDS): sync_not_succeeded fires
 * when a sync's last success (else its creation) is older than the threshold and resolves when it is
 * not; run_duration fires for a run still running past the threshold. Returns the events created.
 */
export async function sweepAlerts(now: Date = new Date()): Promise<number[]> {
  const rules = await prisma().alertRule.findMany({
    where: { enabled: true, condition: { in: ["sync_not_succeeded", "run_duration"] } },
    orderBy: { id: "asc" },
  });
  const events: number[] = [];
  for (const rule of rules) {
    if (rule.condition === "sync_not_succeeded") {
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
