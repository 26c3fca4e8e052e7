// The workspace's connectors, models and syncs as configuration entries (docs/config-as-code.md):
// what export writes and what plan compares a file with. Secrets are never in an entry: the
// serializer masks them and each mask becomes a ${env:NAME} reference.
import "server-only";
import { maskedToRefs } from "@/lib/config-as-code/secret-refs";
import { assignSlugs } from "@/lib/config-as-code/slugs";
import { SECRET_MASK } from "@/lib/connectors/registry";
import type { Catalog as CatalogJson } from "@/lib/connectors/types";
import type { Connector, Model, Sync } from "@/lib/generated/prisma/client";
import { maskedConfiguration } from "@/lib/serializers/connectors";
import { parseCatalogJson } from "@/lib/validation/catalogs";
import type { ConfigConnector, ConfigModel, ConfigSync } from "@/lib/validation/config";
import type { Tx } from "./transaction";

/** An object of the workspace with its slug and its entry as export writes it. */
export interface Known<Row, Entry> {
  id: number;
  slug: string;
  row: Row;
  entry: Entry;
}

export interface WorkspaceConfig {
  connectors: Known<Connector, ConfigConnector>[];
  models: Known<Model, ConfigModel>[];
  syncs: Known<Sync, ConfigSync>[];
  /** Stored catalogs by connector id. */
  catalogs: Map<number, CatalogJson>;
}

const byId = <T extends { id: number }>(rows: T[]) => [...rows].sort((a, b) => a.id - b.id);

function slugOrThrow(slugs: Map<number, string>, id: number, what: string): string {
  const slug = slugs.get(id);
  // A foreign key inside the workspace always points at a row loaded with it.
  if (slug === undefined) throw new Error(`The ${what} ${id} of the workspace was not loaded.`);
  return slug;
}

export async function loadWorkspaceConfig(tx: Tx, workspaceId: number): Promise<WorkspaceConfig> {
  const [connectors, models, syncs, catalogRows] = await Promise.all([
    tx.connector.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    tx.model.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    tx.sync.findMany({ where: { workspaceId, deletedAt: null }, orderBy: { id: "asc" } }),
    tx.catalog.findMany({ where: { workspaceId }, select: { connectorId: true, catalog: true } }),
  ]);
  const catalogs = new Map(catalogRows.map((c) => [c.connectorId, parseCatalogJson(c.catalog, `connector ${c.connectorId}`)]));
  const connectorSlugs = assignSlugs(connectors, "connector");
  const modelSlugs = assignSlugs(models, "model");
  const syncSlugs = assignSlugs(syncs, "sync");

  return {
    catalogs,
    connectors: byId(connectors).map((c) => {
      const slug = slugOrThrow(connectorSlugs, c.id, "connector");
      const catalog = c.connectorType === "destination" ? catalogs.get(c.id) : undefined;
      const entry: ConfigConnector = {
        slug,
        name: c.name,
        connector_type: c.connectorType,
        connector_name: c.connectorName,
        description: c.description,
        configuration: maskedToRefs(maskedConfiguration(c), SECRET_MASK, slug) as Record<string, unknown>,
        ...(catalog ? { catalog } : {}),
      };
      return { id: c.id, slug, row: c, entry };
    }),
    models: byId(models).map((m) => {
      const slug = slugOrThrow(modelSlugs, m.id, "model");
      const entry: ConfigModel = {
        slug,
        name: m.name,
        connector: slugOrThrow(connectorSlugs, m.connectorId, "connector"),
        query_type: m.queryType,
        query: m.query,
        primary_key: m.primaryKey,
        description: m.description,
        configuration: m.configuration as Record<string, unknown>,
      };
      return { id: m.id, slug, row: m, entry };
    }),
    syncs: byId(syncs).map((s) => {
      const slug = slugOrThrow(syncSlugs, s.id, "sync");
      const entry: ConfigSync = {
        slug,
        name: s.name,
        description: s.description,
        source: slugOrThrow(connectorSlugs, s.sourceId, "connector"),
        destination: slugOrThrow(connectorSlugs, s.destinationId, "connector"),
        model: slugOrThrow(modelSlugs, s.modelId, "model"),
        stream_name: s.streamName,
        sync_mode: s.syncMode,
        cursor_field: s.cursorField,
        write_mode: s.writeMode,
        detect_deletes: s.detectDeletes,
        guard: (s.guard ?? null) as ConfigSync["guard"],
        schedule_type: s.scheduleType,
        sync_interval: s.syncInterval,
        sync_interval_unit: s.syncIntervalUnit,
        cron_expression: s.cronExpression,
        timezone: s.timezone,
        configuration: s.configuration as ConfigSync["configuration"],
      };
      return { id: s.id, slug, row: s, entry };
    }),
  };
}

/** Which object of the workspace each entry of a file stands for, by the entry's slug. */
export interface Matches {
  connectors: Map<string, Known<Connector, ConfigConnector>>;
  models: Map<string, Known<Model, ConfigModel>>;
  syncs: Map<string, Known<Sync, ConfigSync>>;
}

type Named = { slug: string; name?: string | null; connector_type?: string };

/** Names are unique per kind ignoring case (connectors: per type); an empty name matches nothing. */
const nameKey = (e: Named): string | undefined => (e.name?.trim() ? `${e.connector_type ?? ""}:${e.name.trim().toLowerCase()}` : undefined);

/**
 * An entry stands for the object whose slug (derived from its current name) is the entry's slug;
 * failing that, for the object with the entry's name. So a file with slugs of its own choosing
 * applies the same way twice, and keeping a slug while changing the name renames. Each object
 * stands for one entry at most: slugs are matched first, names only among the objects left.
 */
function matchKind<R, E extends Named>(entries: readonly Named[] | undefined, known: readonly Known<R, E>[]): Map<string, Known<R, E>> {
  const out = new Map<string, Known<R, E>>();
  if (!entries) return out;
  const taken = new Set<number>();
  for (const e of entries) {
    const bySlug = known.find((k) => k.slug === e.slug);
    if (bySlug) {
      out.set(e.slug, bySlug);
      taken.add(bySlug.id);
    }
  }
  for (const e of entries) {
    const key = nameKey(e);
    if (out.has(e.slug) || key === undefined) continue;
    const byName = known.find((k) => !taken.has(k.id) && nameKey(k.entry) === key);
    if (byName) {
      out.set(e.slug, byName);
      taken.add(byName.id);
    }
  }
  return out;
}

export function matchEntries(doc: { connectors?: readonly Named[]; models?: readonly Named[]; syncs?: readonly Named[] }, state: WorkspaceConfig): Matches {
  return {
    connectors: matchKind(doc.connectors, state.connectors),
    models: matchKind(doc.models, state.models),
    syncs: matchKind(doc.syncs, state.syncs),
  };
}
