// POST /api/v1/syncs/{id}/plan, engine side: the plan of the sync's next general run, computed in
// the calling (API) process with the run's own stages and nothing written. Bounded: at most
// PLAN_MAX_CONCURRENT plans per process, of which one workspace may hold a share (429 past either),
// PLAN_TIMEOUT_SECONDS each (424 past it), and the caller's signal (the client went away) stops it.
// Why inline and not a worker job: see docs/plan-and-guard.md ("Where the plan runs").
import "server-only";
import { prisma } from "@/lib/db/client";
import { FailedDependency, NotFound, RateLimited } from "@/lib/errors";
import type { Sync, SyncRun } from "@/lib/generated/prisma/client";
import { loadRunContext, RunSetupError, type SyncProposal } from "../context";
import { engineSettings } from "../settings";
import { planRun, type SyncPlan } from "./planner";

let running = 0;
/** Plans under way per workspace (entries removed at 0). */
const runningIn = new Map<number, number>();

/**
 * The slots one workspace may hold: PLAN_MAX_CONCURRENT_PER_WORKSPACE, and never every slot (of two or more), so
 * another workspace's plan always finds one free while a tenant's slow models run to their timeout.
 */
function workspacePlanShare(): number {
  return Math.max(1, Math.min(engineSettings.planMaxPerWorkspace, engineSettings.planMaxConcurrent - 1));
}

/** Takes a plan slot for the workspace, or answers 429 saying whose slots are full; the release. */
function takeSlot(workspaceId: number): () => void {
  const limit = engineSettings.planMaxConcurrent;
  const share = workspacePlanShare();
  const mine = runningIn.get(workspaceId) ?? 0;
  if (mine >= share) {
    throw new RateLimited(
      `This workspace has ${mine} plan${mine === 1 ? "" : "s"} being computed already (at most ${share} at once, PLAN_MAX_CONCURRENT_PER_WORKSPACE); try again when ${mine === 1 ? "it finishes" : "one finishes"}.`,
      { headers: { "Retry-After": "5" } },
    );
  }
  if (running >= limit) {
    throw new RateLimited(`${limit} plan${limit === 1 ? " is" : "s are"} being computed already; try again in a few seconds.`, { headers: { "Retry-After": "5" } });
  }
  running++;
  runningIn.set(workspaceId, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running--;
    const left = (runningIn.get(workspaceId) ?? 1) - 1;
    if (left > 0) runningIn.set(workspaceId, left);
    else runningIn.delete(workspaceId);
  };
}

/**
 * The run the plan stands for: not stored, id 0 (ids start at 1, so no tracked row counts as
 * "already recorded by this run"). The context of a run is what the stages take.
 */
function draftRun(sync: Sync): SyncRun {
  const now = new Date();
  return {
    id: 0,
    workspaceId: sync.workspaceId,
    syncId: sync.id,
    status: "pending",
    syncRunType: "general",
    startedAt: null,
    finishedAt: null,
    totalQueryRows: 0,
    totalRows: 0,
    skippedRows: 0,
    successfulRows: 0,
    failedRows: 0,
    duplicateRows: 0,
    processedRows: 0,
    timings: {},
    error: null,
    attempts: 0,
    waitingUntil: null,
    retryWaits: 0,
    writeTarget: null,
    recordColumns: null,
    estimatedRows: null,
    estimateSource: null,
    canceledBy: null,
    testPrimaryKey: null,
    plan: null,
    approvedBy: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** `proposal`: unsaved changes the plan sees as saved (validated by the caller); none: the sync as it is. */
export async function planSync(
  workspaceId: number,
  syncId: number,
  options: { signal?: AbortSignal; sampleSize: number; proposal?: SyncProposal },
): Promise<SyncPlan> {
  const sync = await prisma().sync.findFirst({ where: { id: syncId, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${syncId} was not found.`);
  const release = takeSlot(workspaceId);
  const seconds = engineSettings.planTimeoutSeconds;
  const timeout = AbortSignal.timeout(seconds * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const ctx = await loadRunContext(draftRun(sync), undefined, options.proposal).catch((err: unknown) => {
    release();
    if (err instanceof RunSetupError) throw new FailedDependency(`The sync cannot run, so it cannot be planned: ${err.message}`);
    throw err;
  });
  // The plan's timeout or a closed request leaves the connector calls in flight (connector-calls.ts).
  const abandon = () => ctx.calls.abandon(signal.reason);
  signal.addEventListener("abort", abandon, { once: true });
  try {
    return await planRun(ctx, { signal, sampleSize: options.sampleSize });
  } catch (err) {
    if (timeout.aborted) {
      throw new FailedDependency(
        `The plan took longer than ${seconds} seconds (PLAN_TIMEOUT_SECONDS) and was stopped; nothing was changed. Run the sync instead: its blast-radius guard still checks it before it writes.`,
      );
    }
    if (options.signal?.aborted) throw new FailedDependency("The plan was stopped because the request was closed; nothing was changed.");
    throw new FailedDependency(`The plan could not read the model: ${ctx.scrub(err instanceof Error ? err.message : String(err))}`);
  } finally {
    signal.removeEventListener("abort", abandon);
    release();
    await ctx.destination.close?.(ctx.destinationConfig).catch(() => undefined);
  }
}
