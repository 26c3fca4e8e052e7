// A live sync's slot lag, read from its source (docs/live-syncs.md). Asking the customer's server
// costs a connection and may hang: each read is bounded by LAG_DEADLINE_MS, one read per sync is in
// flight at a time, and its answer serves every caller for LAG_CACHE_MS (the API, the console, the
// alert sweep), so polling the endpoint cannot multiply connections to a source.
import "server-only";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import type { LiveLag } from "@/lib/connectors/live";
import { loadSource } from "@/lib/connectors/registry";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { redact, secretValues } from "@/lib/connectors/shared/secrets";
import { decryptJson } from "@/lib/crypto/encryption";
import type { Connector } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { jsonObjectSchema } from "@/lib/validation/connectors";

export const LAG_DEADLINE_MS = 3000;
export const LAG_CACHE_MS = 5000;
/** Syncs whose last answer is kept; past it the oldest go (a bound on memory, not on correctness). */
const MAX_CACHED = 2000;

/** The slot's lag (null: the sync has no slot), or why it could not be read. */
export type LagReading = { ok: true; lag: LiveLag | null; at: Date } | { ok: false; error: string; at: Date };

interface Entry {
  reading: Promise<LagReading>;
  /** When the answer (or the deadline) came. */
  settledAt: number | null;
  /** The source is still being asked (past the deadline too): no second connection meanwhile. */
  asking: boolean;
  /** The connector and its version the reading came from: a sync moved to another source asks anew. */
  source: string;
}

const cache = new Map<number, Entry>();

/**
 * The slot lag of sync `syncId`, whose source is `source` (the stored connector: its stored
 * configuration is the only one used). The caller has checked that the sync is the reader's.
 */
export function readLag(syncId: number, source: Connector): Promise<LagReading> {
  const now = Date.now();
  const entry = cache.get(syncId);
  const from = `${source.id}@${source.updatedAt.getTime()}`;
  if (entry && entry.source === from && (entry.asking || entry.settledAt === null || now - entry.settledAt < LAG_CACHE_MS)) return entry.reading;
  const fresh: Entry = { reading: Promise.resolve({ ok: false, error: "", at: new Date() }), settledAt: null, asking: true, source: from };
  const asked = askSource(syncId, source)
    .catch((err: unknown): LagReading => {
      logger.warn({ syncId, err: (err as Error).message }, "live sync: reading the slot's lag failed");
      return { ok: false, error: "The source's replication slot could not be read.", at: new Date() };
    })
    .finally(() => {
      fresh.asking = false;
    });
  fresh.reading = withDeadline(asked).finally(() => {
    fresh.settledAt = Date.now();
  });
  cache.delete(syncId);
  cache.set(syncId, fresh);
  if (cache.size > MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return fresh.reading;
}

/** Forgets every cached reading (tests, and a sync whose slot was just dropped). */
export function forgetLag(syncId?: number): void {
  if (syncId === undefined) cache.clear();
  else cache.delete(syncId);
}

async function askSource(syncId: number, source: Connector): Promise<LagReading> {
  const connector = await loadSource(source.connectorName);
  if (!connector.live) return { ok: true, lag: null, at: new Date() };
  const stored = decryptJson(jsonObjectSchema, source.configurationEncrypted, `configuration of connector ${source.id}`);
  const config = adapterConfig(connector.definition, stored, source.workspaceId);
  try {
    return { ok: true, lag: await connector.live.lag(config, syncId), at: new Date() };
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    // The server may repeat a credential in its error: never shown.
    const secrets = secretValues(config, connector.definition).sort((a, b) => b.length - a.length);
    return { ok: false, error: redact(err.message, secrets), at: new Date() };
  }
}

function withDeadline(reading: Promise<LagReading>): Promise<LagReading> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<LagReading>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: `The source did not answer within ${LAG_DEADLINE_MS / 1000} s.`, at: new Date() }),
      LAG_DEADLINE_MS,
    );
    timer.unref();
  });
  return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}
