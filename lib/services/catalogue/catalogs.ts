// Catalogs: the streams of a connector, one catalog per connector. Written by discovery and by the
// catalog endpoints; a sync's stream_name must name one of its destination's streams.
import "server-only";
import { createHash } from "node:crypto";
import { buildCatalog } from "@/lib/connectors/shared/catalog";
import type { Catalog as CatalogJson, Stream } from "@/lib/connectors/types";
import { prisma } from "@/lib/db/client";
import { toJsonColumn } from "@/lib/db/json";
import { NotFound, ValidationFailed } from "@/lib/errors";
import type { Catalog, Prisma } from "@/lib/generated/prisma/client";
import { parseCatalogJson, type CatalogBody, type CreateCatalogInput, type UpdateCatalogInput } from "@/lib/validation/catalogs";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";

type Tx = Prisma.TransactionClient;
type Auth = Pick<AuthContext, "workspaceId" | "user">;

/** Keys sorted at every depth, so the same catalog always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function catalogHash(catalog: unknown): string {
  return createHash("sha256").update(canonicalJson(catalog)).digest("hex");
}

const DEFAULT_RATE = { request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 1 } as const;

/**
 * The stored catalog for a request body. `json_schema` alone builds the reference's single stream
 * (named after the connector, url "unknown", no batching, POST); rate settings and the schema mode
 * not sent keep the values already stored for the connector (from discovery), else the defaults.
 * Streams get the protocol members (supported_sync_modes…) the body leaves out.
 */
export function buildCatalogJson(body: CatalogBody, connectorName: string, previous?: CatalogJson | null): CatalogJson {
  const streams: Stream[] = body.streams
    ? (body.streams as Stream[])
    : [
        {
          name: connectorName,
          url: "unknown",
          json_schema: body.json_schema ?? {},
          batch_support: false,
          batch_size: 0,
          request_method: "POST",
        },
      ];
  return buildCatalog(streams, {
    request_rate_limit: body.request_rate_limit ?? previous?.request_rate_limit ?? DEFAULT_RATE.request_rate_limit,
    request_rate_limit_unit: body.request_rate_limit_unit ?? previous?.request_rate_limit_unit ?? DEFAULT_RATE.request_rate_limit_unit,
    request_rate_concurrency: body.request_rate_concurrency ?? previous?.request_rate_concurrency ?? DEFAULT_RATE.request_rate_concurrency,
    schema_mode: body.schema_mode ?? previous?.schema_mode,
    source_defined_cursor: body.source_defined_cursor,
  });
}

/** Creates or replaces the catalog of a connector (the connector is already known to be the workspace's). */
export async function saveCatalog(
  workspaceId: number,
  connectorId: number,
  catalog: CatalogJson,
  tx: Tx = prisma(),
): Promise<{ catalog: Catalog; created: boolean }> {
  const json = toJsonColumn(catalog);
  const catalogHashValue = catalogHash(catalog);
  const existing = await tx.catalog.findFirst({ where: { connectorId, workspaceId }, select: { id: true } });
  if (existing) {
    const updated = await tx.catalog.update({ where: { id: existing.id }, data: { catalog: json, catalogHash: catalogHashValue } });
    return { catalog: updated, created: false };
  }
  const created = await tx.catalog.create({ data: { workspaceId, connectorId, catalog: json, catalogHash: catalogHashValue } });
  return { catalog: created, created: true };
}

async function connectorOf(tx: Tx, workspaceId: number, connectorId: number) {
  const connector = await tx.connector.findFirst({ where: { id: connectorId, workspaceId }, select: { id: true, name: true } });
  if (!connector) throw new NotFound(`Connector ${connectorId} was not found.`);
  return connector;
}

/**
 * POST /catalogs: the connector's catalog. A connector has one catalog, so a second POST replaces it
 * (as discovery does) rather than failing: clients that "create" after a discover keep working.
 */
export async function createCatalog(auth: Auth, input: CreateCatalogInput): Promise<Catalog> {
  return prisma().$transaction(async (tx) => {
    const connector = await connectorOf(tx, auth.workspaceId, input.connector_id);
    const previous = await tx.catalog.findFirst({ where: { connectorId: connector.id, workspaceId: auth.workspaceId } });
    const json = buildCatalogJson(input.catalog, connector.name, previous ? parseCatalogJson(previous.catalog, `connector ${connector.id}`) : undefined);
    const { catalog, created } = await saveCatalog(auth.workspaceId, connector.id, json, tx);
    await audit(auth, created ? "create" : "update", "catalog", catalog.id, { connector_id: connector.id }, tx);
    return catalog;
  });
}

export async function updateCatalog(auth: Auth, id: number, input: UpdateCatalogInput): Promise<Catalog> {
  return prisma().$transaction(async (tx) => {
    const existing = await tx.catalog.findFirst({ where: { id, workspaceId: auth.workspaceId } });
    if (!existing) throw new NotFound(`Catalog ${id} was not found.`);
    if (input.connector_id !== undefined && input.connector_id !== existing.connectorId) {
      const message = `must be ${existing.connectorId}, the connector of catalog ${id}; use POST /api/v1/catalogs for another connector`;
      throw ValidationFailed.field("connector_id", message);
    }
    const connector = await connectorOf(tx, auth.workspaceId, existing.connectorId);
    const json = buildCatalogJson(input.catalog, connector.name, parseCatalogJson(existing.catalog, `connector ${connector.id}`));
    const { catalog } = await saveCatalog(auth.workspaceId, connector.id, json, tx);
    await audit(auth, "update", "catalog", catalog.id, { connector_id: connector.id }, tx);
    return catalog;
  });
}
