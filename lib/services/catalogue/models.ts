// Models: a query on a source connector of the same workspace, with the column that identifies a row.
import "server-only";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { loadSource } from "@/lib/connectors/registry";
import { DEFAULT_SORT } from "@/lib/validation/sort";
import { prisma } from "@/lib/db/client";
import { Conflict, NotFound, ValidationFailed } from "@/lib/errors";
import type { Prisma, QueryType } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { CreateModelInput, ListModelsQuery, UpdateModelInput } from "@/lib/validation/models";
import { audit } from "../insights/audit";
import { deleteWithDependents } from "./deletion";
import { modelColumns, primaryKeyProblem } from "./model-columns";
import { assertNameFree } from "../unique-names";
import type { AuthContext } from "../accounts/auth-context";
import { inTransaction } from "../transaction";

type Tx = Prisma.TransactionClient;
type Auth = Pick<AuthContext, "workspaceId" | "user">;
type AuthForDelete = Pick<AuthContext, "workspaceId" | "user" | "policies" | "roleName">;

/** Models are returned with a summary of their connector (one query, no N+1). */
const withConnector = {
  connector: { select: { id: true, name: true, connectorName: true, connectorType: true } },
} as const satisfies Prisma.ModelInclude;
export type ModelWithConnector = Prisma.ModelGetPayload<{ include: typeof withConnector }>;

/** The connector must be a source of this workspace; problems are reported on model.connector_id. */
async function sourceConnector(tx: Tx, workspaceId: number, connectorId: number): Promise<{ connectorName: string }> {
  const connector = await tx.connector.findFirst({ where: { id: connectorId, workspaceId }, select: { connectorType: true, connectorName: true } });
  if (!connector) throw ValidationFailed.fromFields([{ path: "model.connector_id", message: `connector ${connectorId} was not found in this workspace` }]);
  if (connector.connectorType !== "source") {
    throw ValidationFailed.fromFields([{ path: "model.connector_id", message: `connector ${connectorId} is a destination; a model reads from a source connector` }]);
  }
  return connector;
}

/**
 * SQL models are one SELECT, in the source's own dialect, that the service wraps and pages:
 * anything else is refused on its field.
 */
async function assertQueryAllowed(query: string, queryType: QueryType, connectorName: string): Promise<void> {
  if (queryType === "ai_ml") return;
  const source = await loadSource(connectorName);
  try {
    source.checkQuery?.(query);
  } catch (err) {
    if (err instanceof ConnectorError) throw ValidationFailed.fromFields([{ path: "model.query", message: err.message }]);
    throw err;
  }
}

/**
 * The primary key must name a column of the query's result, where the columns come cheap
 * (./model-columns.ts); checked before the transaction, so no transaction waits on the source.
 */
async function assertKeyIsColumn(
  db: Tx,
  workspaceId: number,
  m: { connector_id: number; query: string; query_type: QueryType; primary_key?: string | null },
): Promise<void> {
  if (!m.primary_key || m.query_type === "ai_ml") return;
  const connector = await db.connector.findFirst({ where: { id: m.connector_id, workspaceId, connectorType: "source" }, select: { connectorName: true } });
  // An unknown or wrong connector is reported on model.connector_id by the write itself.
  if (!connector) return;
  const problem = primaryKeyProblem(m.primary_key, await modelColumns(workspaceId, m.connector_id, connector.connectorName, m.query));
  if (problem) throw ValidationFailed.fromFields([{ path: "model.primary_key", message: problem }]);
}

export async function listModels(workspaceId: number, filter: ListModelsQuery, page: Page) {
  const where: Prisma.ModelWhereInput = {
    workspaceId,
    ...(filter.connector_id !== undefined ? { connectorId: filter.connector_id } : {}),
    ...(filter.query_type ? { queryType: { in: filter.query_type } } : {}),
  };
  const [rows, total] = await prisma().$transaction([
    prisma().model.findMany({ where, include: withConnector, orderBy: filter.sort ?? DEFAULT_SORT, skip: page.skip, take: page.take }),
    prisma().model.count({ where }),
  ]);
  return { rows, total };
}

export async function getModel(workspaceId: number, id: number): Promise<ModelWithConnector> {
  const model = await prisma().model.findFirst({ where: { id, workspaceId }, include: withConnector });
  if (!model) throw new NotFound(`Model ${id} was not found.`);
  return model;
}

/** `db`: the caller's transaction (config apply); without it, a transaction of its own. */
export async function createModel(auth: Auth, input: CreateModelInput, db?: Tx): Promise<ModelWithConnector> {
  await assertKeyIsColumn(db ?? prisma(), auth.workspaceId, input);
  return inTransaction(db, async (tx) => {
    const { connectorName } = await sourceConnector(tx, auth.workspaceId, input.connector_id);
    await assertQueryAllowed(input.query, input.query_type, connectorName);
    await assertNameFree(tx, auth.workspaceId, "model", input.name, "model.name");
    const model = await tx.model.create({
      data: {
        workspaceId: auth.workspaceId,
        connectorId: input.connector_id,
        name: input.name,
        description: input.description ?? "",
        query: input.query,
        queryType: input.query_type,
        configuration: (input.configuration ?? {}) as Prisma.InputJsonValue,
        primaryKey: input.primary_key ?? null,
      },
      include: withConnector,
    });
    await audit(auth, "create", "model", model.id, { name: model.name, connector_id: model.connectorId }, tx);
    return model;
  });
}

function activeSyncsOf(tx: Tx, workspaceId: number, modelId: number) {
  return tx.sync.findMany({ where: { workspaceId, modelId, deletedAt: null }, select: { id: true, name: true }, orderBy: { id: "asc" } });
}

const describeSyncs = (syncs: { id: number; name: string }[]) =>
  `sync${syncs.length > 1 ? "s" : ""} ${syncs
    .slice(0, 10)
    .map((s) => `${s.id}${s.name ? ` "${s.name}"` : ""}`)
    .join(", ")}${syncs.length > 10 ? ` and ${syncs.length - 10} more` : ""}`;

export async function updateModel(auth: Auth, id: number, input: UpdateModelInput, db?: Tx): Promise<ModelWithConnector> {
  const before = await (db ?? prisma()).model.findFirst({ where: { id, workspaceId: auth.workspaceId } });
  // Only a change that could make the key miss its column is checked (a rename must not query the source).
  if (before && (input.primary_key !== undefined || input.query !== undefined || input.connector_id !== undefined)) {
    await assertKeyIsColumn(db ?? prisma(), auth.workspaceId, {
      connector_id: input.connector_id ?? before.connectorId,
      query: input.query ?? before.query,
      query_type: input.query_type ?? before.queryType,
      primary_key: input.primary_key !== undefined ? input.primary_key : before.primaryKey,
    });
  }
  return inTransaction(db, async (tx) => {
    const existing = await tx.model.findFirst({ where: { id, workspaceId: auth.workspaceId } });
    if (!existing) throw new NotFound(`Model ${id} was not found.`);
    const { connectorName } = await sourceConnector(tx, auth.workspaceId, input.connector_id ?? existing.connectorId);
    await assertQueryAllowed(input.query ?? existing.query, input.query_type ?? existing.queryType, connectorName);
    if (input.name !== undefined && input.name !== existing.name) await assertNameFree(tx, auth.workspaceId, "model", input.name, "model.name", id);
    if (input.connector_id !== undefined && input.connector_id !== existing.connectorId) {
      // A sync's model must read from the sync's source; moving the model would break that.
      const syncs = await activeSyncsOf(tx, auth.workspaceId, id);
      if (syncs.length > 0) {
        throw new Conflict(`Model ${id} is used by ${describeSyncs(syncs)}; its connector cannot change while syncs use it.`);
      }
    }
    if (input.primary_key === null && existing.primaryKey !== null) {
      const syncs = await activeSyncsOf(tx, auth.workspaceId, id);
      if (syncs.length > 0) {
        throw ValidationFailed.fromFields([{ path: "model.primary_key", message: `cannot be removed while this model has syncs (${describeSyncs(syncs)}): change tracking needs it` }]);
      }
    }
    const model = await tx.model.update({
      where: { id: existing.id, workspaceId: auth.workspaceId },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description ?? "" } : {}),
        ...(input.query !== undefined ? { query: input.query } : {}),
        ...(input.query_type !== undefined ? { queryType: input.query_type } : {}),
        ...(input.configuration !== undefined ? { configuration: (input.configuration ?? {}) as Prisma.InputJsonValue } : {}),
        ...(input.primary_key !== undefined ? { primaryKey: input.primary_key } : {}),
        ...(input.connector_id !== undefined ? { connectorId: input.connector_id } : {}),
      },
      include: withConnector,
    });
    await audit(auth, "update", "model", model.id, { fields: Object.keys(input) }, tx);
    return model;
  });
}

/** DELETE /models/{id}: the model and the syncs that use it (./deletion.ts); 403 when the caller may not delete those syncs. */
export async function deleteModel(auth: AuthForDelete, id: number): Promise<void> {
  await deleteWithDependents(auth, { kind: "model", id }, async (tx) => {
    await tx.model.delete({ where: { id, workspaceId: auth.workspaceId } });
  });
}

/** Config apply (in its transaction): a model the file deletes while syncs still use it is a 409 naming them. */
export async function deleteUnusedModel(auth: Auth, id: number, db?: Tx): Promise<void> {
  await inTransaction(db, async (tx) => {
    const model = await tx.model.findFirst({ where: { id, workspaceId: auth.workspaceId }, select: { id: true, name: true } });
    if (!model) throw new NotFound(`Model ${id} was not found.`);
    const syncs = await activeSyncsOf(tx, auth.workspaceId, id);
    if (syncs.length > 0) throw new Conflict(`Model ${id} "${model.name}" is still used by ${describeSyncs(syncs)}; delete those first.`);
    // Soft-deleted syncs still reference the model; they (and their runs) go with it.
    await tx.sync.deleteMany({ where: { workspaceId: auth.workspaceId, modelId: id, deletedAt: { not: null } } });
    await tx.model.delete({ where: { id: model.id } });
    await audit(auth, "delete", "model", id, { name: model.name }, tx);
  });
}
