import type { Catalog, SchemaMode, Stream, SyncMode } from "../types";
import { SyncMode as SyncModes } from "@/lib/generated/prisma/enums";

/** Every stream of ours can be synced either way: the engine diffs rows itself, whatever the system. */
export const SYNC_MODES: readonly SyncMode[] = Object.values(SyncModes);

/** A stream with the reference protocol's members filled in where the connector left them out. */
export function buildStream(stream: Stream): Stream {
  const pk = stream.primary_key;
  return {
    ...stream,
    supported_sync_modes: stream.supported_sync_modes ?? [...SYNC_MODES],
    source_defined_cursor: stream.source_defined_cursor ?? false,
    ...(pk && pk.length > 0 && !stream.source_defined_primary_key ? { source_defined_primary_key: pk.map((column) => [column]) } : {}),
  };
}

/**
 * Catalog-level rate settings default to "no limit the engine must enforce" (0 = unlimited); the
 * schema mode to `schema` (the reference protocol's default).
 */
export function buildCatalog(streams: Stream[], settings: Partial<Omit<Catalog, "streams">> = {}): Catalog {
  return {
    streams: streams.map(buildStream),
    request_rate_limit: settings.request_rate_limit ?? 0,
    request_rate_limit_unit: settings.request_rate_limit_unit ?? "minute",
    request_rate_concurrency: settings.request_rate_concurrency ?? 1,
    schema_mode: settings.schema_mode ?? "schema",
    source_defined_cursor: settings.source_defined_cursor ?? false,
  };
}

const declaresFields = (s: Partial<Stream>) =>
  Object.keys(((s.json_schema ?? {}) as { properties?: object }).properties ?? {}).length > 0;

/**
 * A stored catalog with the protocol members it may lack (stored before they existed). The schema
 * mode of such a catalog is read from its streams: when none declares a field, any field goes.
 */
export function withProtocolMembers(stored: unknown): unknown {
  if (!stored || typeof stored !== "object" || !Array.isArray((stored as Catalog).streams)) return stored;
  const catalog = stored as Partial<Catalog> & { streams: unknown[] };
  const streams = catalog.streams.filter((s): s is Stream => !!s && typeof s === "object");
  const schemaMode: SchemaMode = streams.some(declaresFields) ? "schema" : "schemaless";
  return {
    ...catalog,
    streams: catalog.streams.map((s) => (s && typeof s === "object" ? buildStream(s as Stream) : s)),
    schema_mode: catalog.schema_mode ?? schemaMode,
    source_defined_cursor: catalog.source_defined_cursor ?? false,
  };
}
