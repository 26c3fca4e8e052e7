// Starting a sequence (POST /api/v1/syncs/{id}/sequence_runs): the sync's run is created queued, and
// the sequence run with one step per sync downstream of it, in one transaction, so the hook after
// the first run (./advance.ts) always finds the steps to record on. Then the run goes to the queue;
// the rest of the chain follows from the hook as each run succeeds.
import "server-only";
import type { InferResult } from "kysely";
import { pgPool } from "@/lib/db/client";
import { db, viaClient } from "@/lib/db/kysely";
import { FailedDependency, NotFound } from "@/lib/errors";
import { enqueueRun } from "../queue";
import { createGeneralRun, setRunStatus } from "../run-store";
import { withTransaction } from "../transaction";
import { downstreamOf, type RunAfterEdge } from "./graph";

/** The workspace's "run after" edges between syncs that are not deleted (run with viaClient/viaPrisma). */
export const runAfterEdgesQuery = (workspaceId: number) =>
  db()
    .selectFrom("sync_dependencies as d")
    .innerJoin("syncs as a", (j) => j.onRef("a.id", "=", "d.sync_id").on("a.deleted_at", "is", null))
    .innerJoin("syncs as b", (j) => j.onRef("b.id", "=", "d.upstream_sync_id").on("b.deleted_at", "is", null))
    .select(["d.sync_id", "d.upstream_sync_id"])
    .where("d.workspace_id", "=", workspaceId);

export const toRunAfterEdges = (rows: InferResult<ReturnType<typeof runAfterEdgesQuery>>): RunAfterEdge[] =>
  rows.map((r) => ({ syncId: r.sync_id, upstreamSyncId: r.upstream_sync_id }));

/** Starts the sequence at `syncId`: 404 when not the workspace's, 424 when disabled or already running. */
export async function startSequence(workspaceId: number, syncId: number, triggeredBy: string | null): Promise<{ sequenceRunId: number; syncRunId: number }> {
  const started = await withTransaction(pgPool(), async (client) => {
    const [sync] = await viaClient(
      client,
      db().selectFrom("syncs").select("status").where("id", "=", syncId).where("workspace_id", "=", workspaceId).where("deleted_at", "is", null).forShare(),
    );
    if (!sync) throw new NotFound(`Sync ${syncId} was not found.`);
    if (sync.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before running its sequence.`);
    const syncRunId = await createGeneralRun(client, { id: syncId, workspaceId });
    if (syncRunId === null) throw new FailedDependency(`Sync ${syncId} is already running (or waits for approval); wait for the run to end or cancel it, then start the sequence.`);
    const edges = toRunAfterEdges(await viaClient(client, runAfterEdgesQuery(workspaceId)));
    const members = downstreamOf(edges, syncId);
    const [{ id: sequenceRunId }] = await viaClient(
      client,
      db().insertInto("sequence_runs").values({ workspace_id: workspaceId, sync_id: syncId, triggered_by: triggeredBy }).returning("id"),
    );
    const upstreams = members.map((m) => JSON.stringify(edges.filter((e) => e.syncId === m).map((e) => e.upstreamSyncId)));
    await client.query(
      `INSERT INTO sequence_run_steps (sequence_run_id, sync_id, upstream_sync_ids, sync_run_id, state)
       SELECT $1, m.sync_id, ARRAY(SELECT jsonb_array_elements_text(m.ups::jsonb)::int),
              CASE WHEN m.sync_id = $2 THEN $3::int END, CASE WHEN m.sync_id = $2 THEN 'triggered' ELSE 'waiting' END
       FROM unnest($4::int[], $5::text[]) AS m(sync_id, ups)`,
      [sequenceRunId, syncId, syncRunId, members, upstreams],
    );
    return { sequenceRunId, syncRunId };
  });
  try {
    await enqueueRun(started.syncRunId);
  } catch (err) {
    await setRunStatus(pgPool(), started.syncRunId, "failed", { error: `The run could not be queued: ${(err as Error).message}`, finished: true });
    throw err;
  }
  return started;
}
