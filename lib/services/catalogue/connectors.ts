// Connectors of a workspace: configurations validated against their definition (ajv), stored
// encrypted, masked on the way out; discovery into the catalog and query previews for sources.
import "server-only";
import { supportedWriteModes } from "@/lib/sync-rules/write-mode";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import { EnvironmentPlaceholderError, envRedactor } from "@/lib/connectors/env-placeholders";
import { getDefinition, listDefinitions, loadDestination, loadSource, mergeMaskedSecrets, SecretTargetChangedError } from "@/lib/connectors/registry";
import { connectorGroup } from "@/lib/connectors/categories";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { redact, secretValues } from "@/lib/connectors/shared/secrets";
import type { ConnectorDefinition, QueryResult, Row } from "@/lib/connectors/types";
import { can } from "@/lib/auth/permissions";
import { mayNot } from "@/lib/auth/refusal";
import { decryptJson, encryptJson } from "@/lib/crypto/encryption";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { DEFAULT_SORT } from "@/lib/validation/sort";
import { prisma } from "@/lib/db/client";
import { Conflict, FailedDependency, Forbidden, NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import { Prisma, type Catalog, type Connector } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import {
  QUERY_PREVIEW_DEFAULT_LIMIT,
  type CheckConnectorInput,
  type CreateConnectorInput,
  type ListConnectorsQuery,
  type QuerySourceInput,
  type UpdateConnectorInput,
} from "@/lib/validation/connectors";
import { audit } from "../insights/audit";
import { assertNameFree, nameTaken as sharedNameTaken } from "../unique-names";
import type { AuthContext } from "../accounts/auth-context";
import { saveCatalog } from "./catalogs";
import { deleteWithDependents } from "./deletion";
import { checkConfiguration, configurationErrors, requireDefinition, type CheckConnectionResult } from "./connector-definitions";
import { inTransaction, type Tx } from "../transaction";
import { withApiDeadline } from "./connector-deadline";

type Auth = Pick<AuthContext, "workspaceId" | "user">;

export async function listConnectors(workspaceId: number, filter: ListConnectorsQuery, page: Page) {
  const where: Prisma.ConnectorWhereInput = {
    workspaceId,
    ...(filter.type ? { connectorType: filter.type } : {}),
    ...(filter.category ? categoryWhere(filter.category) : {}),
    ...(filter.search ? { name: { contains: filter.search, mode: "insensitive" } } : {}),
  };
  const [rows, total] = await prisma().$transaction([
    prisma().connector.findMany({ where, orderBy: filter.sort ?? DEFAULT_SORT, skip: page.skip, take: page.take }),
    prisma().connector.count({ where }),
  ]);
  return { rows, total };
}

/**
 * A group is the stored column; one category (`CRM`) is the connectors whose definition has it, by
 * (type, name), since a name's source and destination may differ (Postgresql).
 */
function categoryWhere(category: NonNullable<ListConnectorsQuery["category"]>): Prisma.ConnectorWhereInput {
  if (category === "data" || category === "ai_ml") return { category };
  const definitions = listDefinitions({ category });
  return {
    OR: definitions.map((d) => ({
      connectorType: d.connectorType,
      connectorName: { in: [d.name, ...(d.aliases ?? [])], mode: "insensitive" as const },
    })),
  };
}

export async function getConnector(workspaceId: number, id: number, db: Tx = prisma()): Promise<Connector> {
  const connector = await db.connector.findFirst({ where: { id, workspaceId } });
  if (!connector) throw new NotFound(`Connector ${id} was not found.`);
  return connector;
}

/**
 * The stored configuration with ENV['X'] placeholders resolved, ready to hand to the adapter, and
 * the scrubber that keeps the secret fields' values and what placeholders resolved to out of any
 * sentence shown to the tenant (a server may repeat the credential it was sent in its error).
 */
function connectorConfiguration(connector: Connector): { config: Row; scrub: (message: string) => string } {
  const stored = decryptJson(jsonObjectSchema, connector.configurationEncrypted, `configuration of connector ${connector.id}`);
  try {
    const definition = definitionFor(connector);
    const config = adapterConfig(definition, stored, connector.workspaceId);
    const fromEnv = envRedactor(stored);
    // Longest first, so a secret that contains another is masked whole.
    const secrets = secretValues(config, definition).sort((a, b) => b.length - a.length);
    return { config, scrub: (message) => redact(fromEnv(message), secrets) };
  } catch (err) {
    if (err instanceof EnvironmentPlaceholderError) throw new FailedDependency(err.message);
    throw err;
  }
}

const nameTaken = (input: { name: string; connector_type: "source" | "destination" }) => sharedNameTaken(input.connector_type, input.name, "connector.name");

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";
}

/** `db`: the caller's transaction (config apply); without it, a transaction of its own. */
export async function createConnector(auth: Auth, input: CreateConnectorInput, db?: Tx): Promise<Connector> {
  const definition = requireDefinition(input.connector_name, input.connector_type, "connector.connector_name");
  const errors = configurationErrors(definition, input.configuration, "connector.configuration");
  if (errors.length > 0) throw ValidationFailed.fromFields(errors);
  try {
    return await inTransaction(db, async (tx) => {
      await assertNameFree(tx, auth.workspaceId, input.connector_type, input.name, "connector.name");
      const connector = await tx.connector.create({
        data: {
          workspaceId: auth.workspaceId,
          connectorType: input.connector_type,
          connectorName: definition.name,
          category: connectorGroup(definition.category),
          name: input.name,
          description: input.description ?? "",
          configurationEncrypted: encryptJson(input.configuration),
        },
      });
      await audit(auth, "create", "connector", connector.id, { name: connector.name, connector_name: definition.name }, tx);
      return connector;
    });
  } catch (err) {
    // Two concurrent creates: the unique index decides, with the same sentence.
    if (isUniqueViolation(err)) throw nameTaken(input);
    throw err;
  }
}

/**
 * The configuration an update with `incoming` stores: a masked secret sent back (the console echoes
 * what it was given) keeps the stored secret, unless the secret would now go to another target:
 * whoever may edit a connector must not be able to send an Admin's password to their own server.
 */
function withStoredSecrets(existing: Connector, definition: ConnectorDefinition, incoming: Row, prefix: string): Row {
  try {
    return mergeMaskedSecrets(incoming, decryptJson(jsonObjectSchema, existing.configurationEncrypted, `configuration of connector ${existing.id}`), definition);
  } catch (err) {
    if (!(err instanceof SecretTargetChangedError)) throw err;
    const message = `enter it again: ${err.changedFields.join(", ")} changed, and a stored secret is only sent where it was entered for`;
    // The other fields' errors too, so one answer says everything to fix (masks are secrets' only errors here).
    const others = configurationErrors(definition, incoming, prefix).filter((e) => !err.secretPaths.some((p) => e.path.startsWith(`${prefix}.${p}`)));
    throw ValidationFailed.fromFields([...others, ...err.secretPaths.map((path) => ({ path: `${prefix}.${path}`, message }))]);
  }
}

export async function updateConnector(auth: Auth, id: number, input: UpdateConnectorInput, db?: Tx): Promise<Connector> {
  const existing = await getConnector(auth.workspaceId, id, db);
  const errors: FieldError[] = [];
  // Models, syncs and the catalog are bound to what the connector is; make a new one instead.
  if (input.connector_type !== undefined && input.connector_type !== existing.connectorType) {
    errors.push({ path: "connector.connector_type", message: `cannot change after create (it is ${existing.connectorType})` });
  }
  // An alias (Salesforce for SalesforceCrm) names the same definition: no change.
  const current = getDefinition(existing.connectorName, existing.connectorType);
  const sameDefinition = (name: string) =>
    name.toLowerCase() === existing.connectorName.toLowerCase() || (current !== undefined && getDefinition(name, existing.connectorType) === current);
  if (input.connector_name !== undefined && !sameDefinition(input.connector_name)) {
    errors.push({ path: "connector.connector_name", message: `cannot change after create (it is ${existing.connectorName})` });
  }
  if (errors.length > 0) throw ValidationFailed.fromFields(errors);
  const definition = requireDefinition(existing.connectorName, existing.connectorType, "connector.connector_name");
  let encrypted: string | undefined;
  if (input.configuration !== undefined) {
    const merged = withStoredSecrets(existing, definition, input.configuration, "connector.configuration");
    const configErrors = configurationErrors(definition, merged, "connector.configuration");
    if (configErrors.length > 0) throw ValidationFailed.fromFields(configErrors);
    encrypted = encryptJson(merged);
  }
  const name = input.name ?? existing.name;
  try {
    return await inTransaction(db, async (tx) => {
      if (name !== existing.name) await assertNameFree(tx, auth.workspaceId, existing.connectorType, name, "connector.name", id);
      const connector = await tx.connector.update({
        where: { id: existing.id, workspaceId: auth.workspaceId },
        data: {
          name,
          ...(input.description !== undefined ? { description: input.description ?? "" } : {}),
          ...(encrypted ? { configurationEncrypted: encrypted } : {}),
        },
      });
      const changed = Object.keys(input).filter((k) => k !== "connector_type" && k !== "connector_name");
      await audit(auth, "update", "connector", connector.id, { fields: changed }, tx);
      return connector;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken({ name, connector_type: existing.connectorType });
    throw err;
  }
}

const listNames = (items: { id: number; name: string }[]) =>
  items
    .slice(0, 10)
    .map((i) => `${i.id} "${i.name}"`)
    .join(", ") + (items.length > 10 ? ` and ${items.length - 10} more` : "");

/**
 * DELETE /connectors/{id}: the connector, its catalog, its models and the syncs that use either
 * (./deletion.ts); 403 when the caller may not delete those models or syncs.
 */
export async function deleteConnector(auth: Pick<AuthContext, "workspaceId" | "user" | "policies" | "roleName">, id: number): Promise<void> {
  await deleteWithDependents(auth, { kind: "connector", id }, async (tx) => {
    await tx.connector.delete({ where: { id, workspaceId: auth.workspaceId } });
  });
}

/** Config apply (in its transaction): a connector the file deletes while models or syncs use it is a 409 naming them. */
export async function deleteUnusedConnector(auth: Auth, id: number, db?: Tx): Promise<void> {
  await inTransaction(db, async (tx) => {
    const connector = await tx.connector.findFirst({ where: { id, workspaceId: auth.workspaceId } });
    if (!connector) throw new NotFound(`Connector ${id} was not found.`);
    const [models, syncs] = await Promise.all([
      tx.model.findMany({ where: { connectorId: id, workspaceId: auth.workspaceId }, select: { id: true, name: true }, orderBy: { id: "asc" } }),
      tx.sync.findMany({
        where: { workspaceId: auth.workspaceId, deletedAt: null, OR: [{ sourceId: id }, { destinationId: id }] },
        select: { id: true, name: true },
        orderBy: { id: "asc" },
      }),
    ]);
    const uses: string[] = [];
    if (models.length > 0) uses.push(`model${models.length > 1 ? "s" : ""} ${listNames(models)}`);
    if (syncs.length > 0) uses.push(`sync${syncs.length > 1 ? "s" : ""} ${listNames(syncs)}`);
    if (uses.length > 0) {
      throw new Conflict(`Connector ${id} "${connector.name}" is still used by ${uses.join(" and ")}; delete those first.`);
    }
    // Soft-deleted syncs still reference the connector; they (and their runs) go with it.
    await tx.sync.deleteMany({ where: { workspaceId: auth.workspaceId, deletedAt: { not: null }, OR: [{ sourceId: id }, { destinationId: id }] } });
    await tx.connector.delete({ where: { id: connector.id } });
    await audit(auth, "delete", "connector", id, { name: connector.name }, tx);
  });
}

function definitionFor(connector: Connector): ConnectorDefinition {
  const definition = getDefinition(connector.connectorName, connector.connectorType);
  if (!definition) {
    throw new FailedDependency(`Connector ${connector.id} uses "${connector.connectorName}", which this server no longer provides.`);
  }
  return definition;
}

/** The connector's implementation, imported on first use. */
async function adapterFor(connector: Connector) {
  const { name } = definitionFor(connector);
  return connector.connectorType === "source" ? loadSource(name) : loadDestination(name);
}

/**
 * Tries a saved connector's configuration, or, with `configuration`, settings not saved yet, merged
 * with the stored secrets exactly as an update would store them. The answer is check_connection's:
 * {result: success | failure, details}, HTTP 200 either way. Trying other settings needs
 * connector.update: they could send the stored secrets to another host.
 */
export async function checkConnector(
  auth: Pick<AuthContext, "workspaceId" | "policies" | "roleName" | "apiToken">,
  id: number,
  input: CheckConnectorInput = {},
): Promise<CheckConnectionResult> {
  if (input.configuration !== undefined && !can(auth.policies, "connector", "update")) {
    throw new Forbidden(
      `${mayNot(auth, "change connectors", [["connector", "update"]])}, so it may try only the saved configuration: leave out "configuration".`,
    );
  }
  const connector = await getConnector(auth.workspaceId, id);
  const definition = definitionFor(connector);
  const configuration =
    input.configuration === undefined
      ? decryptJson(jsonObjectSchema, connector.configurationEncrypted, `configuration of connector ${connector.id}`)
      : withStoredSecrets(connector, definition, input.configuration, "configuration");
  return checkConfiguration(definition, configuration, auth.workspaceId);
}

/** SQLSTATE classes caused by the query text itself (syntax, unknown table, read-only, timeout). */
const QUERY_FAULT = /^(42|22|25|2B|0A|57014)/;

function connectorFailure(err: unknown, what: string, scrub: (message: string) => string, queryText = false): Error {
  if (err instanceof ConnectorError) {
    const message = scrub(err.message);
    const sentence = `${what}: ${message}`;
    if (queryText && err.code && QUERY_FAULT.test(err.code)) {
      return new ValidationFailed(sentence, { errors: [{ path: "query", message }] });
    }
    return new FailedDependency(sentence);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The connector's catalog: the stored one, or (none stored, or `refresh`) a fresh discovery that is
 * then stored, so syncs can check stream names against it.
 */
export async function discoverConnector(auth: Auth, id: number, refresh: boolean): Promise<Catalog> {
  const connector = await getConnector(auth.workspaceId, id);
  if (!refresh) {
    const stored = await prisma().catalog.findFirst({ where: { workspaceId: auth.workspaceId, connectorId: id } });
    if (stored) return stored;
  }
  const { config, scrub } = connectorConfiguration(connector);
  let discovered;
  try {
    const adapter = await adapterFor(connector);
    discovered = await withApiDeadline("Discovery", (signal) => adapter.discover(config, signal));
    // What a sync may do with it, beside its streams (docs/write-modes.md).
    if (adapter.definition.connectorType === "destination") discovered = { ...discovered, supported_write_modes: [...supportedWriteModes(adapter.definition)] };
  } catch (err) {
    throw connectorFailure(err, `Could not discover the streams of connector ${id} "${connector.name}"`, scrub);
  }
  return prisma().$transaction(async (tx) => {
    const { catalog, created } = await saveCatalog(auth.workspaceId, connector.id, discovered, tx);
    await audit(auth, created ? "create" : "update", "catalog", catalog.id, { connector_id: connector.id, discovered: true }, tx);
    return catalog;
  });
}

/** The first rows of a query on a source connector (read-only, with the connector's statement timeout). */
export async function querySource(workspaceId: number, id: number, input: QuerySourceInput): Promise<QueryResult> {
  const connector = await getConnector(workspaceId, id);
  if (connector.connectorType !== "source") {
    throw new ValidationFailed(`"${connector.name}" is a destination; queries can only be previewed on sources.`);
  }
  const adapter = await adapterFor(connector);
  if (!("query" in adapter) || !adapter.query) {
    throw new ValidationFailed(`"${connector.name}" (${connector.connectorName}) does not support query previews.`);
  }
  try {
    adapter.checkQuery?.(input.query);
  } catch (err) {
    if (err instanceof ConnectorError) throw new ValidationFailed(err.message, { errors: [{ path: "query", message: err.message }] });
    throw err;
  }
  const { config, scrub } = connectorConfiguration(connector);
  try {
    const preview = adapter.query.bind(adapter);
    return await withApiDeadline("The query preview", (signal) => preview(config, input.query, input.limit ?? QUERY_PREVIEW_DEFAULT_LIMIT, signal));
  } catch (err) {
    // Named as the user knows it, never by internal id: the sentence is about their query.
    throw connectorFailure(err, `The query failed on "${connector.name}"`, scrub, true);
  }
}

