// Deleting a model or a connector takes what depends on it along, as the reference server does (its
// models and connectors destroy their syncs, a connector its models too): its clients say "deleted"
// whatever we answer, so answer and effect must agree. One plan says what goes; the console shows it
// before asking (GET …/dependents), and the delete acts on the same plan.
import "server-only";
import { can } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { ACTIVE_RUN_STATUSES, cancelSync } from "@/lib/engine";
import { FailedDependency, Forbidden, NotFound } from "@/lib/errors";
import type { Prisma, SyncStatus } from "@/lib/generated/prisma/client";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";
import { inTransaction, type Tx } from "../transaction";

type Auth = Pick<AuthContext, "workspaceId" | "user" | "policies" | "roleName">;

export type DeletionTarget = { kind: "model" | "connector"; id: number };

export interface Named {
  id: number;
  name: string;
}

/** What deleting the target takes along, and who may do it. */
export interface DeletionPlan {
  target: DeletionTarget & { name: string };
  /** A connector's models (a source's), deleted with it. */
  models: Named[];
  /** Syncs deleted with it; `running`: a run of it is waiting or running now, and is canceled. */
  syncs: (Named & { status: SyncStatus; running: boolean })[];
  /** Syncs that stay but run after a sync that goes: they stop waiting for it. */
  waiting: (Named & { runAfter: number[] })[];
}

const ACTIVE = [...ACTIVE_RUN_STATUSES];

/** The plan, read through `tx`: 404 when the target is not the workspace's. */
export async function deletionPlan(workspaceId: number, target: DeletionTarget, tx: Tx = prisma()): Promise<DeletionPlan> {
  const found =
    target.kind === "model"
      ? await tx.model.findFirst({ where: { id: target.id, workspaceId }, select: { name: true } })
      : await tx.connector.findFirst({ where: { id: target.id, workspaceId }, select: { name: true } });
  if (!found) throw new NotFound(`${target.kind === "model" ? "Model" : "Connector"} ${target.id} was not found.`);
  const models =
    target.kind === "connector"
      ? await tx.model.findMany({ where: { workspaceId, connectorId: target.id }, select: { id: true, name: true }, orderBy: { id: "asc" } })
      : [];
  const modelIds = target.kind === "model" ? [target.id] : models.map((m) => m.id);
  const uses: Prisma.SyncWhereInput[] = [{ modelId: { in: modelIds } }];
  if (target.kind === "connector") uses.push({ sourceId: target.id }, { destinationId: target.id });
  const syncs = await tx.sync.findMany({
    where: { workspaceId, deletedAt: null, OR: uses },
    select: { id: true, name: true, status: true, _count: { select: { runs: { where: { status: { in: ACTIVE } } } } } },
    orderBy: { id: "asc" },
  });
  const going = syncs.map((s) => s.id);
  const edges = going.length
    ? await tx.syncDependency.findMany({ where: { workspaceId, upstreamSyncId: { in: going }, syncId: { notIn: going } }, orderBy: { upstreamSyncId: "asc" } })
    : [];
  const staying = edges.length
    ? await tx.sync.findMany({ where: { workspaceId, deletedAt: null, id: { in: edges.map((e) => e.syncId) } }, select: { id: true, name: true }, orderBy: { id: "asc" } })
    : [];
  return {
    target: { ...target, name: found.name },
    models,
    syncs: syncs.map((s) => ({ id: s.id, name: s.name, status: s.status, running: s._count.runs > 0 })),
    waiting: staying.map((s) => ({ ...s, runAfter: edges.filter((e) => e.syncId === s.id).map((e) => e.upstreamSyncId) })),
  };
}

const label = (kind: string, n: Named) => `${kind} ${n.id}${n.name ? ` "${n.name}"` : ""}`;
const listed = (kind: string, items: Named[]) =>
  items
    .slice(0, 5)
    .map((i) => label(kind, i))
    .join(", ") + (items.length > 5 ? ` and ${items.length - 5} more` : "");

/**
 * Why the caller may not delete what the plan takes along (null when they may): deleting a model
 * that syncs use deletes syncs, which their role must allow too (a connector's models likewise).
 */
export function deletionRefusal(auth: Pick<Auth, "policies" | "roleName">, plan: DeletionPlan): string | null {
  const what = `${plan.target.kind} ${plan.target.id} "${plan.target.name}"`;
  if (!can(auth.policies, plan.target.kind, "delete")) return `Your role (${auth.roleName}) may not delete ${plan.target.kind}s.`;
  if (plan.models.length > 0 && !can(auth.policies, "model", "delete")) {
    return `Your role (${auth.roleName}) may not delete models, and deleting ${what} would delete ${listed("model", plan.models)} with it; ask someone who may delete models.`;
  }
  if (plan.syncs.length > 0 && !can(auth.policies, "sync", "delete")) {
    return `Your role (${auth.roleName}) may not delete syncs, and deleting ${what} would delete ${listed("sync", plan.syncs)} with it; ask someone who may delete syncs.`;
  }
  return null;
}

/** How a run someone stopped names them (sync_runs.canceled_by), as the sync service does. */
const actorName = (auth: Auth): string => auth.user.name.trim() || auth.user.email;

/**
 * Deletes the target with its dependents: syncs stopped (a waiting or running run canceled), then
 * in one transaction each sync, each model and the target deleted and audit-logged, and syncs that
 * ran after a deleted sync no longer wait for it (audit-logged on them). `removeTarget` deletes the
 * target's own row in that transaction. 403 naming why when the caller may not delete a dependent.
 */
export async function deleteWithDependents(auth: Auth, target: DeletionTarget, removeTarget: (tx: Tx) => Promise<void>): Promise<DeletionPlan> {
  const before = await deletionPlan(auth.workspaceId, target);
  const refusal = deletionRefusal(auth, before);
  if (refusal) throw new Forbidden(refusal);
  // A cancel cannot be rolled back, so it comes first; a run that starts after it finds its sync gone.
  for (const sync of before.syncs.filter((s) => s.running)) {
    await cancelSync(auth.workspaceId, sync.id, actorName(auth)).catch((err: unknown) => {
      if (!(err instanceof FailedDependency || err instanceof NotFound)) throw err;
    });
  }
  return inTransaction(undefined, async (tx) => {
    // Read again: the plan acted on is the one at the moment of deletion (a sync added since goes too).
    const plan = await deletionPlan(auth.workspaceId, target, tx);
    const again = deletionRefusal(auth, plan);
    if (again) throw new Forbidden(again);
    const by = { [`deleted_with_${target.kind}`]: target.id };
    const going = plan.syncs.map((s) => s.id);
    for (const s of plan.syncs) await audit(auth, "delete", "sync", s.id, { name: s.name, ...by }, tx);
    for (const w of plan.waiting) {
      await audit(auth, "update", "sync", w.id, { name: w.name, run_after_removed: w.runAfter, ...by }, tx);
    }
    await tx.syncDependency.deleteMany({ where: { workspaceId: auth.workspaceId, OR: [{ syncId: { in: going } }, { upstreamSyncId: { in: going } }] } });
    // Soft-deleted syncs still reference the model or connector; they (and their runs) go with it.
    const modelIds = target.kind === "model" ? [target.id] : plan.models.map((m) => m.id);
    await tx.sync.deleteMany({
      where: {
        workspaceId: auth.workspaceId,
        OR: [{ id: { in: going } }, { modelId: { in: modelIds } }, ...(target.kind === "connector" ? [{ sourceId: target.id }, { destinationId: target.id }] : [])],
      },
    });
    for (const m of plan.models) await audit(auth, "delete", "model", m.id, { name: m.name, ...by }, tx);
    if (plan.models.length > 0) await tx.model.deleteMany({ where: { workspaceId: auth.workspaceId, id: { in: plan.models.map((m) => m.id) } } });
    await removeTarget(tx);
    await audit(auth, "delete", target.kind, target.id, { name: plan.target.name, syncs: going, models: plan.models.map((m) => m.id) }, tx);
    return plan;
  });
}
