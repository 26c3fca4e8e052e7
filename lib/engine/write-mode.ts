// The write mode's split of a batch's mapped records (docs/write-modes.md): upsert and mirror send
// everything; update sends only records whose key the destination already has, insert only those it
// has not. The rest are skipped, each with a sentence saying why. Deletes are never split. Reads the
// destination (or this sync's change tracking, presence.ts), never writes: the dry-run plan uses it too.
import "server-only";
import type { WriteAction, WriteRecord } from "@/lib/connectors/types";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import { splitsByPresence } from "@/lib/sync-rules/write-mode";
import type { RunContext } from "./context";
import { presenceOf, type Presence } from "./presence";

export interface ModeSplit {
  send: WriteRecord[];
  skipped: { record: WriteRecord; reason: string }[];
}

/** Splits mapped records by the sync's write mode; reads the destination (never writes). */
export async function splitByWriteMode(ctx: RunContext, records: WriteRecord[], signal?: AbortSignal): Promise<ModeSplit> {
  const mode = ctx.sync.writeMode;
  if (!splitsByPresence(mode)) return { send: records, skipped: [] };
  const writes = records.filter((r) => r.action !== "delete");
  const presence = await presenceOf(ctx, writes, signal);
  const split: ModeSplit = { send: records.filter((r) => r.action === "delete"), skipped: [] };
  writes.forEach((record, i) => {
    const p = presence[i];
    // What the record is in this mode: an update of a key that is there, an insert of one that is not.
    const as: WriteRecord = { ...record, action: p.present ? "update" : "insert" };
    if ((mode === "update") === p.present) split.send.push(as);
    else split.skipped.push({ record: as, reason: skipReason(mode, p, ctx.destination.definition.title) });
  });
  return split;
}

function skipReason(mode: "update" | "insert", p: Presence, destination: string): string {
  if (mode === "update") {
    if (p.by === "nokey") return `update mode: the record has no value for the destination key ${p.label}, so it matches no row; it was not created.`;
    if (p.by === "tracking") {
      return `update mode: key ${p.label} was never delivered by this sync (${destination} cannot be asked which keys it has), so it was not created.`;
    }
    return `update mode: key ${p.label} is not in the destination, so it was not created.`;
  }
  if (p.by === "tracking") return `insert mode: key ${p.label} was delivered by this sync before, so it was not sent again.`;
  return `insert mode: key ${p.label} is already in the destination, so it was not updated.`;
}

/** A record's action once its write is known: an insert or update decided by the mode, else as diffed. */
export function recordActionOf(write: WriteAction, diffed: SyncRecordAction): SyncRecordAction {
  if (write === "insert") return "destination_insert";
  if (write === "update") return "destination_update";
  if (write === "delete") return "destination_delete";
  return diffed;
}
