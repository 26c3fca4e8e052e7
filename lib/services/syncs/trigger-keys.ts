// Idempotent manual triggers: POST /schedule_syncs with an Idempotency-Key answers the run that key
// started within the last 24 hours instead of starting another, so an orchestrator that retries a
// trigger (timeout, lost answer) never runs a sync twice. Keys are per workspace; requests with one
// key are serialised by a transaction-scoped advisory lock, so two at once make one run.
import "server-only";
import { sql } from "kysely";
import { pgPool, prisma } from "@/lib/db/client";
import { db, viaClient } from "@/lib/db/kysely";
import { BadRequest, ValidationFailed } from "@/lib/errors";
import { withTransaction } from "@/lib/engine";
import type { SyncRun } from "@/lib/generated/prisma/client";
import type { AuthContext } from "../accounts/auth-context";

/** 'IDEM': the advisory-lock namespace of trigger keys (the key's hash is the second half). */
const KEY_NAMESPACE = 0x4944454d;
/** Visible ASCII, as HTTP header values and the usual UUIDs and job ids are. */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header's value, or null without one; a malformed key is a 400. */
export function triggerKeyOf(headers: Headers): string | null {
  const key = headers.get("idempotency-key");
  if (key === null) return null;
  if (!KEY_FORM.test(key)) {
    throw new BadRequest("The Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID is a good choice).", {
      errors: [{ path: "Idempotency-Key", in: "header", message: "must be 1 to 255 visible ASCII characters" }],
    });
  }
  return key;
}

/**
 * Runs `trigger` once per (workspace, key) within 24 hours: a repeat answers the run the key started.
 * The same key for another sync is a 422 (the caller mixed up its keys).
 */
export async function triggerOnce(auth: Pick<AuthContext, "workspaceId">, syncId: number, key: string, trigger: () => Promise<SyncRun>): Promise<SyncRun> {
  return withTransaction(pgPool(), async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [KEY_NAMESPACE, `${auth.workspaceId}:${key}`]);
    await viaClient(client, db().deleteFrom("trigger_keys").where("created_at", "<", sql<Date>`now() - interval '24 hours'`));
    const [seen] = await viaClient(
      client,
      db().selectFrom("trigger_keys").select(["sync_id", "sync_run_id"]).where("workspace_id", "=", auth.workspaceId).where("key", "=", key),
    );
    if (seen && seen.sync_id !== syncId) {
      throw ValidationFailed.fromFields([
        { path: "Idempotency-Key", message: `was used in the last 24 hours to trigger sync ${seen.sync_id}; send a new key to trigger sync ${syncId}` },
      ]);
    }
    if (seen) {
      const run = await prisma().syncRun.findFirst({ where: { id: seen.sync_run_id, syncId, sync: { workspaceId: auth.workspaceId } } });
      if (run) return run;
      // The run is gone (pruned with its records, or its sync deleted): the key starts a new one.
      await viaClient(client, db().deleteFrom("trigger_keys").where("workspace_id", "=", auth.workspaceId).where("key", "=", key));
    }
    const run = await trigger();
    await viaClient(client, db().insertInto("trigger_keys").values({ workspace_id: auth.workspaceId, key, sync_id: syncId, sync_run_id: run.id }));
    return run;
  });
}
