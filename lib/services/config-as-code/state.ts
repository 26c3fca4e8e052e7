// The workspace's connectors, models, syncs (with their run_after lists), alert channels and alert
// rules as configuration entries (docs/config-as-code.md): what export writes and what plan
// compares a file with. Secrets are never in an entry: the serializer masks them and each mask
// becomes a ${env:NAME} reference (a Slack channel's URL likewise).
import "server-only";
import { configurationToRefs, secretEnvName } from "@/lib/config-as-code/secret-refs";
import { assignSlugs } from "@/lib/config-as-code/slugs";
import { SECRET_MASK } from "@/lib/connectors/registry";
import type { Catalog as CatalogJson } from "@/lib/connectors/types";
import { viaPrisma } from "@/lib/db/kysely";
import { runAfterEdgesQuery, toRunAfterEdges } from "@/lib/engine";
import type { AlertChannel, AlertRule, Connector, Model, Sync } from "@/lib/generated/prisma/client";
import { connectorName, maskedConfiguration } from "@/lib/serializers/connectors";
import { parseCatalogJson } from "@/lib/validation/catalogs";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { parseStored } from "@/lib/validation/stored";
import { guardSchema, syncConfigurationSchema } from "@/lib/validation/syncs";
import type { ConfigAlertChannel, ConfigAlertRule, ConfigConnector, ConfigModel, ConfigSync } from "@/lib/validation/config";
import { channelConfig, urlIsSecret } from "../notifications/alerts/channels";
import type { Tx } from "../transaction";

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
  alert_channels: Known<AlertChannel, ConfigAlertChannel>[];
  /** Rules watching a deleted sync are here (prune removes them) but not in an export. */
  alert_rules: Known<AlertRule, ConfigAlertRule>[];
  /** The upstream sync ids of each sync (its run_after list), by sync id. */
  runAfter: Map<number, number[]>;
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
  const [connectors, models, syncs, catalogRows, channels, rules, edgeRows] = await Promise.all([
    tx.connector.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    tx.model.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    tx.sync.findMany({ where: { workspaceId, deletedAt: null }, orderBy: { id: "asc" } }),
    tx.catalog.findMany({ where: { workspaceId }, select: { connectorId: true, catalog: true } }),
    tx.alertChannel.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    tx.alertRule.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    viaPrisma(tx, runAfterEdgesQuery(workspaceId)),
  ]);
  const runAfter = new Map<number, number[]>();
  for (const e of toRunAfterEdges(edgeRows).sort((a, b) => a.upstreamSyncId - b.upstreamSyncId)) {
    runAfter.set(e.syncId, [...(runAfter.get(e.syncId) ?? []), e.upstreamSyncId]);
  }
  const catalogs = new Map(catalogRows.map((c) => [c.connectorId, parseCatalogJson(c.catalog, `connector ${c.connectorId}`)]));
  const connectorSlugs = assignSlugs(connectors, "connector");
  const modelSlugs = assignSlugs(models, "model");
  const syncSlugs = assignSlugs(syncs, "sync");
  const channelSlugs = assignSlugs(channels, "alert-channel");
  const ruleSlugs = assignSlugs(rules, "alert-rule");

  return {
    catalogs,
    runAfter,
    connectors: byId(connectors).map((c) => {
      const slug = slugOrThrow(connectorSlugs, c.id, "connector");
      const catalog = c.connectorType === "destination" ? catalogs.get(c.id) : undefined;
      const entry: ConfigConnector = {
        slug,
        name: c.name,
        connector_type: c.connectorType,
        connector_name: connectorName(c),
        description: c.description,
        configuration: configurationToRefs(maskedConfiguration(c), SECRET_MASK, slug),
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
        configuration: parseStored(jsonObjectSchema, m.configuration, `configuration of model ${m.id}`),
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
        live: s.live,
        guard: parseStored(guardSchema, s.guard, `guard of sync ${s.id}`),
        schedule_type: s.scheduleType,
        sync_interval: s.syncInterval,
        sync_interval_unit: s.syncIntervalUnit,
        cron_expression: s.cronExpression,
        timezone: s.timezone,
        configuration: parseStored(syncConfigurationSchema, s.configuration, `configuration of sync ${s.id}`),
        run_after: (runAfter.get(s.id) ?? []).map((id) => slugOrThrow(syncSlugs, id, "sync")),
      };
      return { id: s.id, slug, row: s, entry };
    }),
    alert_channels: byId(channels).map((c) => {
      const slug = slugOrThrow(channelSlugs, c.id, "alert channel");
      const config = channelConfig(c);
      const entry: ConfigAlertChannel = {
        slug,
        name: c.name,
        channel_type: c.channelType,
        ...(config.recipients ? { recipients: config.recipients } : {}),
        ...(config.url !== undefined ? { url: urlIsSecret(c.channelType) ? `\${env:${secretEnvName(slug, ["url"])}}` : config.url } : {}),
      };
      return { id: c.id, slug, row: c, entry };
    }),
    alert_rules: byId(rules).map((r) => {
      const slug = slugOrThrow(ruleSlugs, r.id, "alert rule");
      const entry: ConfigAlertRule = {
        slug,
        name: r.name,
        // A rule of a deleted sync (soft-deleted: the row stays) names it by its id, which no file can.
        sync: r.syncId === null ? null : (syncSlugs.get(r.syncId) ?? `deleted-sync-${r.syncId}`),
        condition: r.condition,
        threshold: r.threshold,
        channels: r.channelIds.map((id) => channelSlugs.get(id) ?? `missing-channel-${id}`),
        enabled: r.enabled,
      };
      return { id: r.id, slug, row: r, entry };
    }),
  };
}

/** Whether export writes the rule: not when it watches a deleted sync (it can never fire again). */
export const exportable = (rule: Known<AlertRule, ConfigAlertRule>, state: WorkspaceConfig): boolean =>
  rule.row.syncId === null || state.syncs.some((s) => s.id === rule.row.syncId);

/** Which object of the workspace each entry of a file stands for, by the entry's slug. */
export interface Matches {
  connectors: Map<string, Known<Connector, ConfigConnector>>;
  models: Map<string, Known<Model, ConfigModel>>;
  syncs: Map<string, Known<Sync, ConfigSync>>;
  alert_channels: Map<string, Known<AlertChannel, ConfigAlertChannel>>;
  alert_rules: Map<string, Known<AlertRule, ConfigAlertRule>>;
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

export function matchEntries(doc: Partial<Record<keyof Matches, readonly Named[]>>, state: WorkspaceConfig): Matches {
  return {
    connectors: matchKind(doc.connectors, state.connectors),
    models: matchKind(doc.models, state.models),
    syncs: matchKind(doc.syncs, state.syncs),
    alert_channels: matchKind(doc.alert_channels, state.alert_channels),
    alert_rules: matchKind(doc.alert_rules, state.alert_rules),
  };
}
