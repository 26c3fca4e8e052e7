// "Run after" lists (GET/PUT /api/v1/syncs/{id}/run_after): the syncs of the same workspace that
// must succeed before a sync runs. The whole list is replaced at once, under a per-workspace
// advisory lock so two racing changes cannot close a cycle between them; a cycle (a sync after
// itself included) is a 422 naming it, and a sync not in the workspace a 422 like a missing one.
import "server-only";
import { prisma } from "@/lib/db/client";
import { viaPrisma } from "@/lib/db/kysely";
import { findRunAfterCycle, runAfterEdgesQuery, toRunAfterEdges } from "@/lib/engine";
import { ValidationFailed, type FieldError } from "@/lib/errors";
import type { SetRunAfterInput } from "@/lib/validation/sequences";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";
import { requireSync } from "./syncs";
import { inTransaction, type Tx } from "../transaction";
type Auth = Pick<AuthContext, "workspaceId" | "user">;

/** 'RUNA': the advisory-lock namespace of run-after changes (the workspace id is the second half). */
const RUN_AFTER_NAMESPACE = 0x52554e41;

export interface RunAfterView {
  syncId: number;
  /** The syncs it runs after. */
  upstreamIds: number[];
  /** The syncs that run after it. */
  dependentIds: number[];
}

/** The workspace's edges, read through the caller's transaction. */
const runAfterEdges = async (tx: Tx, workspaceId: number) => toRunAfterEdges(await viaPrisma(tx, runAfterEdgesQuery(workspaceId)));

export async function getRunAfter(workspaceId: number, syncId: number, tx: Tx = prisma()): Promise<RunAfterView> {
  await requireSync(workspaceId, syncId, tx);
  const edges = await runAfterEdges(tx, workspaceId);
  const sorted = (ids: number[]) => ids.sort((a, b) => a - b);
  return {
    syncId,
    upstreamIds: sorted(edges.filter((e) => e.syncId === syncId).map((e) => e.upstreamSyncId)),
    dependentIds: sorted(edges.filter((e) => e.upstreamSyncId === syncId).map((e) => e.syncId)),
  };
}

/** In the caller's transaction `db` when given (config apply), else in one of its own. */
export async function setRunAfter(auth: Auth, syncId: number, input: SetRunAfterInput, db?: Tx): Promise<RunAfterView> {
  const ids = [...new Set(input.run_after.sync_ids)];
  return inTransaction(db, async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${RUN_AFTER_NAMESPACE}::int, ${auth.workspaceId}::int)`;
    const sync = await requireSync(auth.workspaceId, syncId, tx);
    const found = await tx.sync.findMany({ where: { id: { in: ids }, workspaceId: auth.workspaceId, deletedAt: null }, select: { id: true } });
    const known = new Set(found.map((s) => s.id));
    // Another workspace's sync reads exactly like one that does not exist.
    const errors: FieldError[] = ids
      .filter((id) => !known.has(id))
      .map((id) => ({ path: `run_after.sync_ids.${input.run_after.sync_ids.indexOf(id)}`, message: `sync ${id} was not found in this workspace` }));
    if (errors.length > 0) throw ValidationFailed.fromFields(errors);
    const edges = await runAfterEdges(tx, auth.workspaceId);
    const cycle = findRunAfterCycle(edges, syncId, ids);
    if (cycle) throw ValidationFailed.field("run_after.sync_ids", await cycleMessage(tx, auth.workspaceId, cycle));
    const before = edges.filter((e) => e.syncId === syncId).map((e) => e.upstreamSyncId);
    await tx.syncDependency.deleteMany({ where: { syncId, workspaceId: auth.workspaceId } });
    await tx.syncDependency.createMany({ data: ids.map((upstreamSyncId) => ({ workspaceId: auth.workspaceId, syncId, upstreamSyncId })) });
    await audit(auth, "update", "sync", syncId, { run_after: ids, run_after_before: before, name: sync.name }, tx);
    return getRunAfter(auth.workspaceId, syncId, tx);
  });
}

/** "would make a cycle: sync 3 "orders" → sync 5 "invoices" → sync 3 "orders"" (a sync after itself included). */
async function cycleMessage(tx: Tx, workspaceId: number, cycle: number[]): Promise<string> {
  const named = await tx.sync.findMany({ where: { id: { in: cycle }, workspaceId }, select: { id: true, name: true } });
  const names = new Map(named.map((s) => [s.id, s.name]));
  const label = (id: number) => (names.get(id) ? `sync ${id} ${JSON.stringify(names.get(id))}` : `sync ${id}`);
  if (cycle.length === 2 && cycle[0] === cycle[1]) return `${label(cycle[0])} cannot run after itself`;
  return `would make a cycle: ${cycle.map(label).join(" → ")}; a sync cannot wait on a sync that waits on it`;
}
