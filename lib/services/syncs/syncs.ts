// Syncs: a source, a model of that source, a destination stream and a schedule. Soft-deleted syncs
// (deleted_at set) are invisible: every lookup filters them out, so they are 404 everywhere.
import "server-only";
import { prisma } from "@/lib/db/client";
import { computeNextRunAt } from "@/lib/sync-rules/schedule";
import {
  approveRun,
  cancelRun,
  cancelSync,
  planSync as planNextRun,
  releaseLiveSlot,
  startLive,
  transitionSyncStatus,
  triggerSync,
  triggerTestRun,
  type SyncPlan,
  type SyncProposal,
} from "@/lib/engine";
import { FailedDependency, NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import { logger } from "@/lib/logger";
import { Prisma, type Sync } from "@/lib/generated/prisma/client";
import {
  scheduleErrors,
  scheduleUses,
  type CreateSyncInput,
  type GuardInput,
  type PlanSyncInput,
  type ScheduleInput,
  type TestSyncInput,
  type UpdateSyncInput,
} from "@/lib/validation/syncs";
import { parseCatalogJson } from "@/lib/validation/catalogs";
import { audit } from "../insights/audit";
import { liveErrors } from "./live";
import { assertNameFree } from "../unique-names";
import type { AuthContext } from "../accounts/auth-context";
import { triggerOnce } from "./trigger-keys";
import { getSync, type SyncView } from "./view";
import { inTransaction } from "../transaction";
import { resolveWriteMode } from "./write-mode";
import { assertMayPropose, syncProposal } from "./proposal";
import { configurationErrors, storedGuard } from "./fields";

// The read side (the resource view, the list) lives in ./sync-view; routes import it from here.
export { getSync, listSyncs, type ConnectorSummary, type LastRun, type ModelSummary, type SyncView } from "./view";

type Tx = Prisma.TransactionClient;
type Auth = Pick<AuthContext, "workspaceId" | "user">;

/** The sync row itself (not deleted, in the workspace), for services that act on it. */
export async function requireSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<Sync> {
  const sync = await db.sync.findFirst({ where: { id, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${id} was not found.`);
  return sync;
}

interface References {
  source_id: number;
  destination_id: number;
  model_id: number;
  stream_name: string;
}

/** Source, destination and model must be the workspace's, of the right kind, and fit together. */
async function referenceErrors(tx: Tx, workspaceId: number, refs: References): Promise<FieldError[]> {
  const [source, destination, model, catalog] = await Promise.all([
    tx.connector.findFirst({ where: { id: refs.source_id, workspaceId }, select: { connectorType: true } }),
    tx.connector.findFirst({ where: { id: refs.destination_id, workspaceId }, select: { connectorType: true } }),
    tx.model.findFirst({ where: { id: refs.model_id, workspaceId }, select: { connectorId: true, primaryKey: true } }),
    tx.catalog.findFirst({ where: { connectorId: refs.destination_id, workspaceId }, select: { catalog: true } }),
  ]);
  const errors: FieldError[] = [];
  if (!source) errors.push({ path: "sync.source_id", message: `connector ${refs.source_id} was not found in this workspace` });
  else if (source.connectorType !== "source") {
    errors.push({ path: "sync.source_id", message: `connector ${refs.source_id} is a destination, not a source` });
  }
  if (!destination) errors.push({ path: "sync.destination_id", message: `connector ${refs.destination_id} was not found in this workspace` });
  else if (destination.connectorType !== "destination") {
    errors.push({ path: "sync.destination_id", message: `connector ${refs.destination_id} is a source, not a destination` });
  }
  if (!model) errors.push({ path: "sync.model_id", message: `model ${refs.model_id} was not found in this workspace` });
  else if (source && model.connectorId !== refs.source_id) {
    errors.push({ path: "sync.model_id", message: `model ${refs.model_id} reads from connector ${model.connectorId}, not from source ${refs.source_id}` });
  }
  if (model && !model.primaryKey) {
    errors.push({
      path: "sync.model_id",
      message: `model ${refs.model_id} has no primary_key, and a sync tracks changes by it; set one (PUT /api/v1/models/${refs.model_id} {model: {primary_key}})`,
    });
  }
  if (destination?.connectorType === "destination") {
    if (!catalog) {
      errors.push({
        path: "sync.destination_id",
        message: `destination ${refs.destination_id} has no catalog yet; discover it (GET /api/v1/connectors/${refs.destination_id}/discover) or create one (POST /api/v1/catalogs)`,
      });
    } else {
      const names = parseCatalogJson(catalog.catalog, `connector ${refs.destination_id}`).streams.map((s) => s.name);
      if (!names.includes(refs.stream_name)) {
        const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? `, … (${names.length} streams)` : "");
        errors.push({ path: "sync.stream_name", message: `"${refs.stream_name}" is not a stream of destination ${refs.destination_id}; use one of: ${shown || "(none)"}` });
      }
    }
  }
  return errors;
}

/** syncs.guard as sent: null (or {}) back to the defaults, left out unchanged. */
function guardColumn(guard: GuardInput | undefined): { guard?: Prisma.InputJsonValue | typeof Prisma.DbNull } {
  if (guard === undefined) return {};
  return { guard: storedGuard(guard) ?? Prisma.DbNull };
}

/**
 * Only the fields the schedule type uses are kept (manual: none; cron: no interval; interval: no cron);
 * values sent for the others are accepted and cleared, never an error.
 */
function scheduleColumns(s: ScheduleInput) {
  const { cron, useCron, useInterval } = scheduleUses(s);
  return {
    scheduleType: s.schedule_type,
    syncInterval: useInterval ? (s.sync_interval ?? null) : null,
    syncIntervalUnit: useInterval ? (s.sync_interval_unit ?? null) : null,
    cronExpression: useCron ? cron : null,
    timezone: s.timezone || "UTC",
  };
}

/** `db`: the caller's transaction (config apply); without it, a transaction of its own. */
export async function createSync(auth: Auth, input: CreateSyncInput, db?: Tx): Promise<SyncView> {
  const schedule = scheduleColumns(input);
  // The live check asks the customer's server: before the transaction, so a server that never answers
  // holds no connection of the application database (in a caller's transaction, config apply, within it).
  const live = input.live ? { sourceId: input.source_id, modelId: input.model_id, syncMode: input.sync_mode, cursorField: input.cursor_field || null } : undefined;
  if (live && !db) await refuseLive(auth.workspaceId, live, prisma());
  const view = await inTransaction(db, async (tx) => {
    const writeMode = await resolveWriteMode(tx, auth.workspaceId, input.destination_id, input.write_mode, undefined);
    const errors = [
      ...(await referenceErrors(tx, auth.workspaceId, input)),
      ...writeMode.errors,
      ...configurationErrors(input.configuration),
    ];
    if (errors.length > 0) throw ValidationFailed.fromFields(errors);
    if (live && db) await refuseLive(auth.workspaceId, live, tx);
    await assertNameFree(tx, auth.workspaceId, "sync", input.name ?? "", "sync.name");
    const created = await tx.sync.create({
      data: {
        workspaceId: auth.workspaceId,
        sourceId: input.source_id,
        destinationId: input.destination_id,
        modelId: input.model_id,
        name: input.name ?? "",
        description: input.description ?? "",
        configuration: (input.configuration ?? []) as Prisma.InputJsonValue,
        syncMode: input.sync_mode,
        streamName: input.stream_name,
        cursorField: input.cursor_field || null,
        detectDeletes: input.detect_deletes ?? false,
        live: input.live ?? false,
        ...guardColumn(input.guard),
        writeMode: writeMode.mode,
        status: "pending",
        ...schedule,
        nextRunAt: computeNextRunAt({ ...schedule, status: "pending" }),
      },
    });
    await audit(auth, "create", "sync", created.id, { name: created.name, schedule_type: created.scheduleType, write_mode: created.writeMode }, tx);
    return getSync(auth.workspaceId, created.id, tx);
  });
  // Committed first: the run reads the sync. In a caller's transaction (config apply) the caller
  // calls liveAfterCommit once it commits.
  if (!db) await liveAfterCommit(auth.workspaceId, view.id, false, view.live);
  return view;
}

const SCHEDULE_KEYS = ["schedule_type", "sync_interval", "sync_interval_unit", "cron_expression", "timezone"] as const;

export async function updateSync(auth: Auth, id: number, input: UpdateSyncInput, db?: Tx): Promise<SyncView> {
  let wasLive = false;
  // As in createSync: the customer's server is asked before the transaction (a sync not found is the transaction's 404).
  const before = db ? undefined : await prisma().sync.findFirst({ where: { id, workspaceId: auth.workspaceId, deletedAt: null } });
  const checkLive = (existing: { live: boolean; sourceId: number; modelId: number; syncMode: Sync["syncMode"]; cursorField: string | null }) => {
    const refsChanged = input.source_id !== undefined || input.model_id !== undefined || input.sync_mode !== undefined;
    const on = input.live ?? existing.live;
    // Checked when turned on, and when what it streams changes while on.
    if (!on || !((input.live === true && !existing.live) || refsChanged)) return undefined;
    return { sourceId: input.source_id ?? existing.sourceId, modelId: input.model_id ?? existing.modelId, syncMode: input.sync_mode ?? existing.syncMode, cursorField: existing.cursorField };
  };
  const early = before ? checkLive(before) : undefined;
  if (early) await refuseLive(auth.workspaceId, early, prisma());
  const view = await inTransaction(db, async (tx) => {
    const existing = await requireSync(auth.workspaceId, id, tx);
    wasLive = existing.live;
    const errors: FieldError[] = [];
    if (input.cursor_field !== undefined && (input.cursor_field || null) !== existing.cursorField) {
      errors.push({
        path: "sync.cursor_field",
        message: `cannot change after the sync is created (it is ${existing.cursorField === null ? "not set" : `"${existing.cursorField}"`}); create a new sync instead`,
      });
    }
    // The schedule rules apply to the result: fields not sent keep their stored values.
    const scheduleChanged = SCHEDULE_KEYS.some((k) => input[k] !== undefined);
    const schedule: ScheduleInput = {
      schedule_type: input.schedule_type ?? existing.scheduleType,
      sync_interval: input.sync_interval !== undefined ? input.sync_interval : existing.syncInterval,
      sync_interval_unit: input.sync_interval_unit !== undefined ? input.sync_interval_unit : existing.syncIntervalUnit,
      cron_expression: input.cron_expression !== undefined ? input.cron_expression : existing.cronExpression,
      timezone: input.timezone !== undefined ? input.timezone : existing.timezone,
    };
    // The schedule type decides: only the fields it runs on are checked, the others are cleared
    // (scheduleColumns), as the reference's clients expect (its SDK sends sync_interval on every sync).
    if (scheduleChanged) errors.push(...scheduleErrors(schedule));
    const refs: References = {
      source_id: input.source_id ?? existing.sourceId,
      destination_id: input.destination_id ?? existing.destinationId,
      model_id: input.model_id ?? existing.modelId,
      stream_name: input.stream_name ?? existing.streamName,
    };
    const refsChanged = (["source_id", "destination_id", "model_id", "stream_name"] as const).some((k) => input[k] !== undefined);
    if (refsChanged) errors.push(...(await referenceErrors(tx, auth.workspaceId, refs)));
    // A new mode, or a new destination that may not support the stored one.
    const modeChecked = input.write_mode !== undefined || refs.destination_id !== existing.destinationId;
    const writeMode = modeChecked ? await resolveWriteMode(tx, auth.workspaceId, refs.destination_id, input.write_mode, existing.writeMode) : undefined;
    if (writeMode) errors.push(...writeMode.errors);
    if (input.configuration !== undefined) errors.push(...configurationErrors(input.configuration));
    if (errors.length > 0) throw ValidationFailed.fromFields(errors);
    const late = db ? checkLive(existing) : undefined;
    if (late) await refuseLive(auth.workspaceId, late, tx);
    if (input.name && input.name !== existing.name) await assertNameFree(tx, auth.workspaceId, "sync", input.name, "sync.name", id);

    const columns = scheduleChanged ? scheduleColumns(schedule) : {};
    await tx.sync.update({
      where: { id: existing.id, workspaceId: auth.workspaceId },
      data: {
        sourceId: refs.source_id,
        destinationId: refs.destination_id,
        modelId: refs.model_id,
        streamName: refs.stream_name,
        ...(input.name !== undefined ? { name: input.name ?? "" } : {}),
        ...(input.description !== undefined ? { description: input.description ?? "" } : {}),
        ...(input.configuration !== undefined ? { configuration: (input.configuration ?? []) as Prisma.InputJsonValue } : {}),
        ...(input.sync_mode !== undefined ? { syncMode: input.sync_mode } : {}),
        ...(input.detect_deletes !== undefined ? { detectDeletes: input.detect_deletes } : {}),
        ...(input.live !== undefined ? { live: input.live } : {}),
        ...guardColumn(input.guard),
        ...(writeMode ? { writeMode: writeMode.mode } : {}),
        ...columns,
        // Only a new schedule moves the next run; editing a mapping must not postpone it.
        ...(scheduleChanged ? { nextRunAt: computeNextRunAt({ ...scheduleColumns(schedule), status: existing.status }) } : {}),
      },
    });
    await audit(auth, "update", "sync", id, { fields: Object.keys(input) }, tx);
    return getSync(auth.workspaceId, id, tx);
  });
  if (!db) await liveAfterCommit(auth.workspaceId, id, wasLive, view.live);
  return view;
}

/**
 * What a saved sync needs once its change committed, when live was turned on or off: turned on (or
 * created live), its first run is queued (the backfill); turned off, its slot is dropped once its run
 * has stopped (the run itself ends within a status poll). The API's saves call it themselves; a
 * config apply calls it after its transaction (config-as-code/config.ts).
 */
export async function liveAfterCommit(workspaceId: number, id: number, wasLive: boolean, isLive: boolean): Promise<void> {
  if (isLive && !wasLive) await startLive(workspaceId, id);
  if (!isLive && wasLive) releaseInBackground(id);
}

/** A deleted sync's slot, if it was live, once its run has stopped: for a config apply's deletes, after they commit. */
export function releaseAfterDelete(id: number): void {
  releaseInBackground(id);
}

/** Drops a live sync's slot once its run has stopped (lib/engine/live/release.ts), without holding the request. */
function releaseInBackground(syncId: number): void {
  void releaseLiveSlot(syncId).catch((err: unknown) => logger.warn({ syncId, err: (err as Error).message }, "live sync: could not drop its slot"));
}

/** How a run someone stopped names them (sync_runs.canceled_by): their name, else their email. */
const actorName = (auth: Auth): string => auth.user.name.trim() || auth.user.email;

/**
 * Soft-deletes the sync. Alone, its waiting or running run is stopped first; in the caller's
 * transaction `db` (config apply) it is not (a cancel cannot be rolled back): a worker stops a run
 * whose sync is deleted (lib/engine/execute-run.ts), and a queued one never starts; the caller
 * releases a live sync's slot after it commits (releaseAfterDelete).
 */
export async function deleteSync(auth: Auth, id: number, db?: Tx): Promise<void> {
  if (!db) {
    await requireSync(auth.workspaceId, id);
    // Stop a waiting or running run first; the engine only sees syncs that are not deleted.
    await cancelSync(auth.workspaceId, id, actorName(auth)).catch((err: unknown) => {
      if (!(err instanceof FailedDependency)) throw err;
    });
  }
  await inTransaction(db, async (tx) => {
    const sync = await requireSync(auth.workspaceId, id, tx);
    await tx.sync.update({ where: { id: sync.id }, data: { deletedAt: new Date(), nextRunAt: null } });
    await audit(auth, "delete", "sync", id, { name: sync.name }, tx);
  });
  if (!db) releaseInBackground(id);
}

/**
 * Disable: status disabled, no next run, its active run stopped (failed, the reason in error). Enable: status pending, next run
 * from the schedule. Asking for the state the sync is already in changes nothing.
 */
export async function setSyncEnabled(auth: Auth, id: number, enable: boolean): Promise<SyncView> {
  const sync = await requireSync(auth.workspaceId, id);
  if (enable === (sync.status === "disabled")) {
    await transitionSyncStatus(auth.workspaceId, id, enable ? "pending" : "disabled", actorName(auth));
    await audit(auth, enable ? "enable" : "disable", "sync", id, { from: sync.status });
    if (!enable) releaseInBackground(id);
    else if (sync.live) await startLive(auth.workspaceId, id);
  }
  return getSync(auth.workspaceId, id);
}

/**
 * Manual run now (POST /schedule_syncs): 424 when disabled or already running. With an idempotency
 * key, a repeat within 24 hours answers the run the key started (trigger-keys.ts).
 */
export async function triggerSyncRun(auth: Auth, syncId: number, idempotencyKey: string | null = null) {
  const trigger = async () => {
    const run = await triggerSync(auth.workspaceId, syncId);
    await audit(auth, "trigger", "sync", syncId, { sync_run_id: run.id, ...(idempotencyKey === null ? {} : { idempotency_key: idempotencyKey }) });
    return run;
  };
  return idempotencyKey === null ? trigger() : triggerOnce(auth, syncId, idempotencyKey, trigger);
}

/** Cancels the active run (DELETE /schedule_syncs/{sync_id}): 424 when there is none. */
export async function cancelSyncRun(auth: Auth, syncId: number) {
  const run = await cancelSync(auth.workspaceId, syncId, actorName(auth));
  await audit(auth, "cancel", "sync", syncId, { sync_run_id: run.id });
  return run;
}

/** A test run with the row of `primary_key`, or a random one: 424 when disabled, 404 when unknown. */
export async function testSync(auth: Auth, syncId: number, input: TestSyncInput = {}) {
  const run = await triggerTestRun(auth.workspaceId, syncId, input.primary_key);
  await audit(auth, "test", "sync", syncId, { sync_run_id: run.id, ...(input.primary_key !== undefined ? { primary_key: input.primary_key } : {}) });
  return run;
}

/**
 * The plan of the sync's next run (POST /syncs/{id}/plan), or of it with unsaved changes (`sync`,
 * sync-proposal.ts): read-only, so not audit-logged.
 */
export async function planSync(
  auth: Auth & Pick<AuthContext, "policies" | "roleName" | "apiToken">,
  syncId: number,
  input: PlanSyncInput = {},
  signal?: AbortSignal,
): Promise<SyncPlan> {
  let proposal: SyncProposal | undefined;
  if (input.sync !== undefined) {
    assertMayPropose(auth);
    proposal = await syncProposal(auth, await requireSync(auth.workspaceId, syncId), input.sync);
  }
  return planNextRun(auth.workspaceId, syncId, { signal, sampleSize: input.sample_size ?? 5, proposal });
}

/** Approves a run its limits held (POST …/sync_runs/{id}/approve): 409 unless it waits for approval. */
export async function approveSyncRun(auth: Auth, syncId: number, runId: number, plannedAt?: string) {
  const run = await approveRun(auth.workspaceId, syncId, runId, actorName(auth), plannedAt);
  await audit(auth, "approve", "sync", syncId, { sync_run_id: run.id });
  return run;
}

/** Cancels one run by id (POST …/sync_runs/{id}/cancel): 409 when it has already ended. */
export async function cancelSyncRunById(auth: Auth, syncId: number, runId: number) {
  const run = await cancelRun(auth.workspaceId, syncId, runId, actorName(auth));
  await audit(auth, "cancel", "sync", syncId, { sync_run_id: run.id });
  return run;
}

/** 422 with the reasons the sync cannot run live (the source is asked: its wal_level, the model's plan). */
async function refuseLive(workspaceId: number, candidate: Parameters<typeof liveErrors>[2], reader: Tx): Promise<void> {
  const refused = await liveErrors(reader, workspaceId, candidate);
  if (refused.length > 0) throw ValidationFailed.fromFields(refused);
}
