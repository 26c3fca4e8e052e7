// Sequences: a sync runs after other syncs succeed; a sequence run starts a sync and the chain
// downstream of it (docs/orchestration.md).
import { z } from "zod";
import { runAfterSchema, sequenceRunSchema } from "@/lib/serializers/sequences.schema";
import { byIdParamsSchema, getSequenceRunQuerySchema, setRunAfterSchema } from "@/lib/validation/sequences";
import { operation } from "./operation";

export const sequences = {
  getRunAfter: operation({
    operationId: "getRunAfter",
    method: "get",
    path: "/api/v1/syncs/{id}/run_after",
    tag: "Sequences",
    summary: "The syncs this sync runs after, and those that run after it",
    permission: ["sync", "read"],
    params: byIdParamsSchema,
    status: 200,
    response: z.strictObject({ data: runAfterSchema }),
  }),
  setRunAfter: operation({
    operationId: "setRunAfter",
    method: "put",
    path: "/api/v1/syncs/{id}/run_after",
    tag: "Sequences",
    summary: "Set the syncs this sync runs after (replaces the list; empty clears it)",
    permission: ["sync", "update"],
    params: byIdParamsSchema,
    body: setRunAfterSchema,
    status: 200,
    response: z.strictObject({ data: runAfterSchema }),
    notes:
      "When a general run of an upstream succeeds, the sync starts if every enabled upstream's latest run succeeded, one of those finished after the sync's latest run was created, and it is not running; a disabled sync is skipped. 422 when a listed sync is not in this workspace, or when the list would make a cycle (a sync after itself included): the message names the cycle. Audit-logged.",
  }),
  startSequenceRun: operation({
    operationId: "startSequenceRun",
    method: "post",
    path: "/api/v1/syncs/{id}/sequence_runs",
    tag: "Sequences",
    summary: "Run the sync now, and then the syncs downstream of it as their upstreams succeed",
    permission: ["sync", "create"],
    params: byIdParamsSchema,
    status: 201,
    response: z.strictObject({ data: sequenceRunSchema }),
    errors: [422, 424],
    notes:
      "The sync's run is queued at once (data.steps[0].sync_run_id); the request does not wait for it. The sequence's steps are this sync and every sync downstream of it now. Wait on GET /api/v1/sequence_runs/{id}?wait=N. 424 when the sync is disabled or already running. Audit-logged (trigger). An `Idempotency-Key` header works as on POST /api/v1/schedule_syncs (same keys): a repeat within 24 hours answers the sequence run the key started; a key used for another sync, or for a plain run of this one, is a 422.",
  }),
  getSequenceRun: operation({
    operationId: "getSequenceRun",
    method: "get",
    path: "/api/v1/sequence_runs/{id}",
    tag: "Sequences",
    summary: "Progress of a sequence run",
    permission: ["sync_run", "read"],
    params: byIdParamsSchema,
    query: getSequenceRunQuerySchema,
    status: 200,
    response: z.strictObject({ data: sequenceRunSchema }),
    errors: [429],
    notes:
      "With wait=N (0-60) the request long-polls until the status is success, failed or needs_approval, or N seconds pass. 429 (Retry-After) when the workspace already holds LONG_POLL_MAX_PER_WORKSPACE waits, or the caller LONG_POLL_MAX_PER_USER across their workspaces, in this process.",
  }),
};
