// live_lag_bytes and live_lag_seconds in the periodic check (docs/alerts.md, docs/live-syncs.md):
// each live sync the rule watches has its lag measured (the source asked within a deadline, the
// answer shared for a few seconds with the API) and the rule fires above the threshold, resolves
// under it, and keeps its state when the lag cannot be read. A sync no longer live, disabled or
// deleted holds no slot: its firing state resolves.
import "server-only";
import type { AlertRule } from "@/lib/generated/prisma/client";
import { prisma } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { getLiveStatus } from "@/lib/services/syncs/live-status";
import { lagBreach } from "./conditions";

type Transition = (syncId: number, firing: boolean) => Promise<number | null>;

export async function sweepLiveLag(rule: AlertRule, now: Date, transition: Transition): Promise<number[]> {
  const events: number[] = [];
  const syncs = await prisma().sync.findMany({
    where: { workspaceId: rule.workspaceId, deletedAt: null, ...(rule.syncId !== null ? { id: rule.syncId } : {}) },
    select: { id: true, live: true, status: true },
    orderBy: { id: "asc" },
  });
  const watched = new Set(syncs.filter((s) => s.live && s.status !== "disabled").map((s) => s.id));
  for (const syncId of watched) {
    let breach: boolean | undefined;
    try {
      const status = await getLiveStatus(rule.workspaceId, syncId, now);
      // No slot (read fine, nothing there): nothing is held on the source.
      const noSlot = status.lag.error === null && status.lag.bytes === null;
      breach = noSlot ? false : lagBreach(rule, status.lag);
    } catch (err) {
      logger.warn({ ruleId: rule.id, syncId, err: (err as Error).message }, "alerts: a live sync's lag could not be measured");
      continue;
    }
    if (breach === undefined) continue;
    const id = await transition(syncId, breach);
    if (id !== null) events.push(id);
  }
  // Firing for a sync that stopped being live (or was disabled or deleted): nothing is held any more.
  const firing = await prisma().alertState.findMany({ where: { alertRuleId: rule.id, status: "firing" }, select: { syncId: true } });
  for (const { syncId } of firing) {
    if (watched.has(syncId)) continue;
    const id = await transition(syncId, false);
    if (id !== null) events.push(id);
  }
  return events;
}
