// A live sync deleted, disabled or turned off must not leave a slot holding the source's WAL: once
// its run has stopped (the run drops the slot itself when it sees the change: live-run.ts), the slot
// and publication are dropped from here too, which also covers a sync with no run at that moment.
// The keeper (keeper.ts) drops the slot of a live sync that failed too often in a row the same way.
import "server-only";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import { liveSlotName } from "@/lib/connectors/live";
import { loadSource } from "@/lib/connectors/registry";
import { decryptJson } from "@/lib/crypto/encryption";
import { pgPool, prisma } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { runLockKey } from "../locks";
import { ACTIVE_RUN_STATUSES } from "../transitions";
import { saveLiveLsn } from "./live-store";

/** How long to wait for the sync's run to stop before dropping the slot from under it. */
const RUN_STOP_WAIT_MS = 10_000;

export async function releaseLiveSlot(syncId: number): Promise<void> {
  const sync = await prisma().sync.findUnique({ where: { id: syncId }, select: { live: true, liveLsn: true, deletedAt: true, status: true } });
  // Never live (or released already), or live and on: nothing to drop.
  if (!sync || (!sync.live && sync.liveLsn === null) || (sync.live && !sync.deletedAt && sync.status !== "disabled")) return;
  const deadline = Date.now() + RUN_STOP_WAIT_MS;
  while (Date.now() < deadline && (await runGoesOn(syncId))) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await dropLiveSlot(syncId);
}

/** Drops the sync's slot and publication on its source (if there) and forgets its position. */
export async function dropLiveSlot(syncId: number): Promise<void> {
  const sync = await prisma().sync.findUnique({ where: { id: syncId }, include: { source: true } });
  if (!sync) return;
  const connector = await loadSource(sync.source.connectorName);
  if (!connector.live) return;
  const stored = decryptJson(jsonObjectSchema, sync.source.configurationEncrypted, `configuration of connector ${sync.source.id}`);
  const config = adapterConfig(connector.definition, stored, sync.workspaceId);
  if (await connector.live.exists(config, syncId)) {
    logger.warn({ syncId, slot: liveSlotName(syncId) }, "dropping a live sync's replication slot and publication on the source");
  }
  await connector.live.drop(config, syncId);
  await saveLiveLsn(pgPool(), syncId, null);
}

/**
 * A run of the sync is active, or a worker still executes one: a cancel ends the run's status at once,
 * but its worker stops (and drops the slot itself) only when it notices, holding the sync's run lock
 * until then. Dropping the slot before would break its stream from under it.
 */
async function runGoesOn(syncId: number): Promise<boolean> {
  if ((await prisma().syncRun.count({ where: { syncId, status: { in: [...ACTIVE_RUN_STATUSES] } } })) > 0) return true;
  const [space, id] = runLockKey({ id: 0, syncId, syncRunType: "general" });
  const { rows } = await pgPool().query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid::bigint = $1 AND objid::bigint = $2`,
    [space, id],
  );
  return rows.length > 0;
}
