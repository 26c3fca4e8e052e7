// The one naming rule of the workspace's things (docs/architecture.md, "API rules", 9): no two
// sources, two destinations, two models or two syncs of a workspace share a name, compared ignoring
// case (the request schemas trim it). A source and a destination may share one; a sync may have no
// name. A clash is a 409 `conflict` whose item points at the name field.
import "server-only";
import { Conflict } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

type Tx = Prisma.TransactionClient;
export type NamedKind = "source" | "destination" | "model" | "sync";

/** 'NAME' as an int4 namespace: with the workspace id, serialises the check-then-write of names. */
const NAME_NAMESPACE = 0x4e414d45;

/** The sentence of a clash, the same for every kind and for the unique index's own refusal. */
export function nameTaken(kind: NamedKind, name: string, path: string): Conflict {
  const what = kind === "source" || kind === "destination" ? `A ${kind} connector` : `A ${kind}`;
  const message = `${what} named "${name}" already exists in this workspace (names are compared ignoring case); choose another name.`;
  return new Conflict(message, { errors: [{ path, message: `is taken: ${message}` }] });
}

/**
 * Throws `nameTaken` when another `kind` of the workspace (not `exceptId`) has `name`. Call it in
 * the transaction that writes the name: the advisory lock held until its end makes two concurrent
 * creates of one name queue, so the second sees the first.
 */
export async function assertNameFree(tx: Tx, workspaceId: number, kind: NamedKind, name: string, path: string, exceptId?: number): Promise<void> {
  if (!name) return;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${NAME_NAMESPACE}::int4, ${workspaceId}::int4)`;
  const where = { workspaceId, name: { equals: name, mode: "insensitive" as const }, ...(exceptId !== undefined ? { NOT: { id: exceptId } } : {}) };
  const clash =
    kind === "model"
      ? await tx.model.findFirst({ where, select: { id: true } })
      : kind === "sync"
        ? await tx.sync.findFirst({ where: { ...where, deletedAt: null }, select: { id: true } })
        : await tx.connector.findFirst({ where: { ...where, connectorType: kind }, select: { id: true } });
  if (clash) throw nameTaken(kind, name, path);
}
